/**
 * Permission rules that last (seed 001's `rules`, CONTRACT section 6): `{tool_name, rule_content,
 * behavior: allow | deny | ask, source}`, kept by the session and applied to every later call of a
 * server tool, whichever door the turn came through. Platform-free.
 *
 * How `rule_content` matches a call: it is a glob (`*` any run of characters, `?` one character)
 * matched, whole, against the call's *subject*: what the tool names as the part of its input a rule
 * is about (`memory_save`: the note's text; `calculator`: the expression; `current_time`: the time
 * zone; `memory_list`: nothing, the empty string). A tool that names none (an MCP server's) is
 * matched on its input as compact JSON. An empty `rule_content` or `*` matches every call of the tool;
 * `tool_name` `*` names every tool. When rules disagree, deny wins over ask, and ask over allow.
 */
import { z } from '../lib/zod';

export const permissionRuleSchema = z.strictObject({
  tool_name: z.string().min(1).max(128),
  rule_content: z.string().max(2000),
  behavior: z.enum(['allow', 'deny', 'ask']),
  source: z.string().max(128).default('userSettings'),
});

export type PermissionRule = z.output<typeof permissionRuleSchema>;
export type PermissionVerdict = PermissionRule['behavior'];

/** Which verdict the rules give for a call, if any rule matches it. */
export function verdictFor(rules: PermissionRule[], name: string, subject: string): PermissionVerdict | undefined {
  let verdict: PermissionVerdict | undefined;
  for (const rule of rules) {
    if (rule.tool_name !== name && rule.tool_name !== '*') continue;
    if (!globMatches(rule.rule_content, subject)) continue;
    if (rule.behavior === 'deny') return 'deny';
    if (rule.behavior === 'ask' || verdict === undefined) verdict = rule.behavior;
  }
  return verdict;
}

/** `*` and `?` as in a shell; every other character stands for itself. The whole subject must match. */
export function globMatches(pattern: string, subject: string): boolean {
  if (pattern === '' || pattern === '*') return true;
  const source = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[\\s\\S]*').replace(/\?/g, '[\\s\\S]');
  return new RegExp(`^${source}$`).test(subject);
}
