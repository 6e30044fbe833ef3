/**
 * A tool's JSON Schema without the keywords a server does not know (`unknownSchemaKeys`, dialect.ts),
 * at every depth. The keys of a `properties` map are property names, not keywords: kept, their
 * schemas read; values (`enum`, `const`, `default`, `examples`) are data: kept as they are.
 */
const VALUES = new Set(['enum', 'const', 'default', 'examples']);

export function withoutKeys(schema: unknown, keys: ReadonlySet<string>): unknown {
  if (keys.size === 0) return schema;
  if (Array.isArray(schema)) return schema.map((item) => withoutKeys(item, keys));
  if (!isRecord(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (keys.has(key)) continue;
    if (VALUES.has(key)) out[key] = value;
    else if (key === 'properties' && isRecord(value)) out[key] = Object.fromEntries(Object.entries(value).map(([name, property]) => [name, withoutKeys(property, keys)]));
    else out[key] = withoutKeys(value, keys);
  }
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
