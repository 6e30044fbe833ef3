/** The rule on client tool names, shared by every door that takes client tools. */
import { ApiError } from '../lib/errors';
import type { ClientTool } from './turn-request';

/** The turns API (docs/turns-api.md): a tool name must be unique across the request's client tools and the agent's own. */
export function checkToolNames(tools: ClientTool[], serverNames: readonly string[]): void {
  const seen = new Set<string>();
  const clashes = new Set<string>();
  for (const { name } of tools) {
    if (seen.has(name) || serverNames.includes(name)) clashes.add(name);
    seen.add(name);
  }
  if (clashes.size === 0) return;
  const names = [...clashes];
  throw new ApiError(400, 'tool_name_conflict', `Tool names must be unique across your tools and the agent's (${serverNames.join(', ')}): ${names.join(', ')}.`, {
    details: { names, serverTools: serverNames },
  });
}
