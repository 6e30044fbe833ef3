/**
 * Permission rules that last (the Harness protocol's `rules`; docs/decisions.md 22): `{tool_name, rule_content,
 * behavior: allow | deny | ask, source}`, kept by the session and applied to every later call of a
 * server tool, whichever door the turn came through. Platform-free.
 *
 * How `rule_content` matches a call: it is a glob (`*` any run of characters, `?` one character)
 * matched, whole, against the call's *subject*: what the tool names as the part of its input a rule
 * is about (`memory_save`: the note's text; `calculator`: the expression; `current_time`: the time
 * zone; `memory_list`: nothing, the empty string). A tool that names none (an MCP server's) is
 * matched on its input as compact JSON. An empty `rule_content` or `*` matches every call of the tool;
 * `tool_name` `*` names every tool. When rules disagree, deny wins over ask, and ask over allow.
 *
 * The subject is the model's output, so the matcher must not be a handle for it: a glob is matched
 * segment by segment, each `*`-free piece found at its leftmost place after the one before (no
 * backtracking, no regular expression), in time linear in the subject for each piece. A subject over
 * `MAX_SUBJECT_CHARS` is not matched at all: rules that match every call still do; of the others,
 * deny and ask rules count as matching and allow rules do not, so that length never buys a way past a rule.
 */
import { madeOnce } from '../lib/made-once';
import * as z from '../lib/zod';

/** Made by its first use (`madeOnce`): a plain turn request brings no rule, and a Worker never reads one back. */
export const permissionRuleSchema = madeOnce(() =>
  z.strictObject({
    tool_name: z.string().check(z.minLength(1), z.maxLength(128)),
    rule_content: z.string().check(z.maxLength(2000)),
    behavior: z.enum(['allow', 'deny', 'ask']),
    source: z._default(z.string().check(z.maxLength(128)), 'userSettings'),
  }),
);

export type PermissionRule = z.output<ReturnType<typeof permissionRuleSchema>>;
export type PermissionVerdict = PermissionRule['behavior'];

/** The longest subject a rule's pattern is matched against (see the header). */
export const MAX_SUBJECT_CHARS = 16_384;

/** Which verdict the rules give for a call, if any rule matches it. */
export function verdictFor(rules: PermissionRule[], name: string, subject: string): PermissionVerdict | undefined {
  const tooLong = subject.length > MAX_SUBJECT_CHARS;
  let verdict: PermissionVerdict | undefined;
  for (const rule of rules) {
    if (rule.tool_name !== name && rule.tool_name !== '*') continue;
    const everyCall = rule.rule_content === '' || rule.rule_content === '*';
    const matches = everyCall || (tooLong ? rule.behavior !== 'allow' : globMatches(rule.rule_content, subject));
    if (!matches) continue;
    if (rule.behavior === 'deny') return 'deny';
    if (rule.behavior === 'ask' || verdict === undefined) verdict = rule.behavior;
  }
  return verdict;
}

/** `*` and `?` as in a shell; every other character stands for itself. The whole subject must match. */
export function globMatches(pattern: string, subject: string): boolean {
  if (pattern === '') return true;
  const pieces = pattern.split('*');
  const first = pieces[0] ?? '';
  if (pieces.length === 1) return pattern.length === subject.length && matchesAt(pattern, subject, 0);
  const last = pieces[pieces.length - 1] ?? '';
  const end = subject.length - last.length;
  if (first.length > end || !matchesAt(first, subject, 0) || !matchesAt(last, subject, end)) return false;
  // Between the anchored ends, each piece at its leftmost place: if any placement works, that one does.
  let at = first.length;
  for (const piece of pieces.slice(1, -1)) {
    if (piece === '') continue;
    const found = find(piece, subject, at, end);
    if (found < 0) return false;
    at = found + piece.length;
  }
  return true;
}

/** Whether `piece` (with `?` for any one character) stands in `subject` at `at`. */
function matchesAt(piece: string, subject: string, at: number): boolean {
  for (let index = 0; index < piece.length; index++) {
    const char = piece[index];
    if (char !== '?' && char !== subject[at + index]) return false;
  }
  return true;
}

/** Where `piece` first stands in `subject[from, end)`, or -1. */
function find(piece: string, subject: string, from: number, end: number): number {
  if (!piece.includes('?')) {
    const found = subject.indexOf(piece, from);
    return found >= 0 && found + piece.length <= end ? found : -1;
  }
  for (let at = from; at + piece.length <= end; at++) if (matchesAt(piece, subject, at)) return at;
  return -1;
}
