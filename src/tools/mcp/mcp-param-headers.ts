/**
 * `x-mcp-header`: a tool's parameter that a modern MCP server asks to see mirrored in a header
 * (`Mcp-Param-{Name}`), so that a gateway can route on it; the server refuses a call without it
 * (docs/configuration.md, "MCP servers"). A tool whose annotations break the rules (on a parameter
 * not reached by `properties` alone, on one that is not a string, integer or boolean, a name that is
 * not a header's, two names alike) is left out of the list, as MCP asks of a client.
 */
import { headerValue } from '../../api/mcp-headers';
import { isRecord } from '../../lib/is-record';

export type ParamHeader = { name: string; path: string[] };

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const PRIMITIVE = new Set(['string', 'integer', 'boolean']);
/** Deeper than this, a schema is not searched further (no real tool nests its parameters so deep). */
const MAX_DEPTH = 64;

/** The headers a tool's schema asks for, or why the tool must be left out. */
export function paramHeadersOf(schema: Record<string, unknown>): { headers: ParamHeader[] } | { invalid: string } {
  const headers: ParamHeader[] = [];
  const problems: string[] = [];
  const visit = (node: unknown, path: string[] | undefined, depth: number): void => {
    if (depth > MAX_DEPTH) return;
    if (Array.isArray(node)) return node.forEach((item) => visit(item, undefined, depth + 1));
    if (!isRecord(node)) return;
    if ('x-mcp-header' in node) {
      const problem = annotationProblem(node, path, headers);
      if (problem) problems.push(problem);
      else headers.push({ name: node['x-mcp-header'] as string, path: path! });
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === 'properties' && isRecord(value)) {
        for (const [property, inner] of Object.entries(value)) visit(inner, path && [...path, property], depth + 1);
      } else if (key !== 'x-mcp-header') visit(value, undefined, depth + 1);
    }
  };
  visit(schema, [], 0);
  return problems.length > 0 ? { invalid: problems.join('; ') } : { headers };
}

function annotationProblem(node: Record<string, unknown>, path: string[] | undefined, taken: ParamHeader[]): string | undefined {
  const name = node['x-mcp-header'];
  if (path === undefined || path.length === 0) return 'x-mcp-header on a parameter not reached through properties alone';
  if (typeof name !== 'string' || !TOKEN.test(name)) return `x-mcp-header ${JSON.stringify(name)} at ${path.join('.')} is not a header name`;
  if (typeof node.type !== 'string' || !PRIMITIVE.has(node.type)) return `x-mcp-header ${name} is on ${path.join('.')}, which is not a string, integer or boolean`;
  if (taken.some((header) => header.name.toLowerCase() === name.toLowerCase())) return `x-mcp-header ${name} names two parameters`;
  return undefined;
}

/** The headers a call sends: each annotated parameter's value where the arguments hold one. */
export function paramHeaderValues(headers: ParamHeader[], args: Record<string, unknown>): Record<string, string> {
  const values: Record<string, string> = {};
  for (const header of headers) {
    let value: unknown = args;
    for (const key of header.path) value = isRecord(value) ? value[key] : undefined;
    const text = typeof value === 'string' ? headerValue(value) : typeof value === 'boolean' || Number.isSafeInteger(value) ? String(value) : undefined;
    if (text !== undefined) values[`mcp-param-${header.name}`] = text;
  }
  return values;
}
