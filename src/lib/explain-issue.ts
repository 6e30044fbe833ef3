/**
 * A schema's refusal of a union, told by what is wrong with the input rather than as zod's bare
 * "Invalid input". A union whose every branch failed (a content block, a message's content) keeps
 * each branch's issues; the branch the input was meant for is the one it fits: not of another type
 * altogether, and not of another kind (a `type` tag of another value). Its first issue is the one to
 * tell. When no branch fits, the issue names the kinds or types the union takes. `describeIssue`
 * gives a refusal's first issue so explained to every door's sentence (a body, a query, a socket
 * frame, an MCP call, the deployment's settings).
 */
import { cut, quoted } from './quoted';

/** A key the input named is told by its first characters, and a list of unknown keys by its first few. */
const MAX_KEY = 64;
const MAX_KEYS_NAMED = 8;

/** An issue as zod reports it, with what a union's issue keeps of its branches. */
export type SchemaIssue = {
  code?: string;
  path: readonly PropertyKey[];
  message: string;
  expected?: unknown;
  values?: readonly unknown[];
  keys?: readonly string[];
  errors?: readonly (readonly SchemaIssue[])[];
};

export function explainIssue(issue: SchemaIssue, base: readonly PropertyKey[] = []): { path: PropertyKey[]; message: string } {
  const path = [...base, ...issue.path.map(boundedKey)];
  const branches = issue.code === 'invalid_union' ? (issue.errors ?? []) : [];
  if (branches.length === 0) return { path, message: leafMessage(issue) };
  const fitting = branches.filter(fits);
  if (fitting.length > 0) {
    // Of several that fit, the nearest: the one with the fewest issues.
    const nearest = fitting.reduce((best, branch) => (branch.length < best.length ? branch : best));
    return explainIssue(nearest[0]!, path);
  }
  const tags = new Map<string, Set<string>>();
  const types = new Set<string>();
  collectKinds(branches, tags, types);
  const [key, values] = [...tags][0] ?? [];
  if (key !== undefined && values) return { path: [...path, key], message: `Invalid input: expected one of ${[...values].map((value) => JSON.stringify(value)).join(', ')}` };
  if (types.size > 0) return { path, message: `Invalid input: expected ${[...types].join(' or ')}` };
  return { path, message: issue.message };
}

/** A key the input named, as a reply names it (a key of megabytes is not sent back). */
function boundedKey(key: PropertyKey): PropertyKey {
  return typeof key === 'string' ? cut(key, MAX_KEY) : key;
}

/**
 * An issue's own message, but keys it names by their first characters, and at most a few of them.
 * What zod says it received and the client never sent is told as what it was: undefined is a field
 * left out (JSON has no undefined), NaN a text coerced to a number that is none (`?limit=abc`).
 */
function leafMessage(issue: SchemaIssue): string {
  if (issue.code === 'invalid_type' && issue.message.endsWith('received undefined')) return `Required: expected ${String(issue.expected)}`;
  if (issue.code === 'invalid_type' && issue.expected === 'number' && issue.message.endsWith('received NaN')) return 'Invalid input: expected a number';
  const keys = issue.code === 'unrecognized_keys' ? issue.keys : undefined;
  if (!keys || keys.length === 0) return issue.message;
  const named = keys.slice(0, MAX_KEYS_NAMED).map((key) => quoted(key, MAX_KEY));
  return `Unrecognized key${keys.length > 1 ? 's' : ''}: ${named.join(', ')}${keys.length > MAX_KEYS_NAMED ? ` and ${keys.length - MAX_KEYS_NAMED} more` : ''}`;
}

/** A schema's message inside a sentence of ours, which ends with its own period: the message's own is dropped. */
export function clause(message: string | undefined): string {
  return (message ?? 'not valid').replace(/\.$/, '');
}

/** A refusal's first issue, explained, as the parts of a sentence of ours: its path ('' at the root) and its clause. */
export function describeIssue(issue: SchemaIssue | undefined): { path: string; clause: string } {
  if (!issue) return { path: '', clause: clause(undefined) };
  const explained = explainIssue(issue);
  return { path: explained.path.map(String).join('.'), clause: clause(explained.message) };
}

/** Whether the input is of the branch's type and kind: its issues lie inside it. */
function fits(branch: readonly SchemaIssue[]): boolean {
  return branch.every((issue) => {
    if (issue.path.length === 0 && issue.code === 'invalid_type') return false;
    if (issue.path.length === 1 && issue.code === 'invalid_value') return false;
    if (issue.path.length === 0 && issue.code === 'invalid_union') return (issue.errors ?? []).some(fits);
    return true;
  });
}

/** The tags (`type: "text"`) and the types the branches of a union, nested ones included, take. */
function collectKinds(branches: readonly (readonly SchemaIssue[])[], tags: Map<string, Set<string>>, types: Set<string>): void {
  for (const branch of branches) {
    for (const issue of branch) {
      if (issue.path.length === 0 && issue.code === 'invalid_type' && typeof issue.expected === 'string') types.add(issue.expected);
      if (issue.path.length === 1 && issue.code === 'invalid_value' && typeof issue.path[0] === 'string') {
        const values = tags.get(issue.path[0]) ?? new Set<string>();
        for (const value of issue.values ?? []) values.add(String(value));
        tags.set(issue.path[0], values);
      }
      if (issue.path.length === 0 && issue.code === 'invalid_union') collectKinds(issue.errors ?? [], tags, types);
    }
  }
}
