/**
 * A tool's schema as the Messages API takes it: an object schema with no `oneOf`, `anyOf` or `allOf`
 * at its top. The API refuses every call that offers a tool whose schema has one ("input_schema does
 * not support oneOf, allOf, or anyOf at the top level"), and MCP servers publish such schemas (for
 * "exactly one of these fields"). The branches' properties join the top's; what every branch of a
 * `oneOf` or `anyOf` requires, and what any branch of an `allOf` requires, stays required. The rule
 * between the branches is left to the tool, which checks its input.
 */
import { isRecord } from '../../lib/is-record';

const BRANCHES = ['oneOf', 'anyOf', 'allOf'] as const;

export function inputSchema(parameters: Record<string, unknown>): Record<string, unknown> {
  if (!BRANCHES.some((key) => key in parameters)) return { type: 'object', ...parameters };
  const { oneOf, anyOf, allOf, ...top } = parameters;
  const objects = (value: unknown) => (Array.isArray(value) ? value.filter(isRecord) : []);
  const properties: Record<string, unknown> = {};
  for (const branch of [...objects(oneOf), ...objects(anyOf), ...objects(allOf)]) Object.assign(properties, isRecord(branch.properties) ? branch.properties : {});
  Object.assign(properties, isRecord(top.properties) ? top.properties : {});
  const required = new Set([...names(top.required), ...objects(allOf).flatMap((branch) => names(branch.required)), ...inEvery(objects(oneOf)), ...inEvery(objects(anyOf))]);
  return { ...top, type: 'object', properties, ...(required.size > 0 ? { required: [...required] } : {}) };
}

/** What every branch requires (none where there are no branches). */
function inEvery(branches: Record<string, unknown>[]): string[] {
  const [first, ...rest] = branches.map((branch) => names(branch.required));
  return (first ?? []).filter((name) => rest.every((other) => other.includes(name)));
}

function names(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((name): name is string => typeof name === 'string') : [];
}
