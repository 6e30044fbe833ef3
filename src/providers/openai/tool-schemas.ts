/**
 * A tool's JSON Schema as a Chat Completions server takes it (`toolParameters`): at its top an object
 * with `properties`, which OpenAI asks for where a tool takes no input ("In context=(), object schema
 * missing properties"; MCP servers publish `{"type": "object"}` alone); and at every depth (`chatSchema`):
 * - an array schema without `items` gets `{}` (any item): OpenAI refuses it as it is ("In
 *   context=('properties', 'texts'), array schema missing items"), and MCP servers publish it;
 * - without the keywords the server does not know (`unknownSchemaKeys`, dialect.ts).
 * The keys of a `properties` map are property names, not keywords: kept, their schemas read; values
 * (`enum`, `const`, `default`, `examples`) are data: kept as they are.
 */
import { isRecord } from '../../lib/is-record';

const VALUES = new Set(['enum', 'const', 'default', 'examples']);

/** Each schema as a server that names no unknown keywords takes it, made once: every call of a turn offers the same tools. */
const made = new WeakMap<object, Record<string, unknown>>();

export function toolParameters(parameters: Record<string, unknown>, unknownKeys: ReadonlySet<string>): Record<string, unknown> {
  if (unknownKeys.size > 0) return forServer(parameters, unknownKeys);
  let schema = made.get(parameters);
  if (!schema) made.set(parameters, (schema = forServer(parameters, unknownKeys)));
  return schema;
}

function forServer(parameters: Record<string, unknown>, unknownKeys: ReadonlySet<string>): Record<string, unknown> {
  const schema = chatSchema(parameters, unknownKeys) as Record<string, unknown>;
  return 'properties' in schema ? schema : { ...schema, properties: {} };
}

function chatSchema(schema: unknown, unknownKeys: ReadonlySet<string>): unknown {
  if (Array.isArray(schema)) return schema.map((item) => chatSchema(item, unknownKeys));
  if (!isRecord(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (unknownKeys.has(key)) continue;
    if (VALUES.has(key)) out[key] = value;
    else if (key === 'properties' && isRecord(value)) out[key] = Object.fromEntries(Object.entries(value).map(([name, property]) => [name, chatSchema(property, unknownKeys)]));
    else out[key] = chatSchema(value, unknownKeys);
  }
  const array = out.type === 'array' || (Array.isArray(out.type) && out.type.includes('array'));
  if (array && !('items' in out) && !('prefixItems' in out)) out.items = {};
  return out;
}
