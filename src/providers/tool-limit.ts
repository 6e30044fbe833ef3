/**
 * The tools a call offers where the model server takes at most `max` (OpenAI takes 128, and a
 * deployment's MCP servers with a request's client tools can offer more). Remote MCP servers' tools
 * are left out first, the last of them first; then the earliest of the rest, the built-in ones, since
 * a request's own client tools come last and stay. What was left out is logged: the model could not
 * call it in this call.
 */
import type { ToolSpec } from './types';

export function withinToolLimit(tools: ToolSpec[], max: number | undefined): ToolSpec[] {
  if (max === undefined || tools.length <= max) return tools;
  let over = tools.length - max;
  const leftOut = new Set<ToolSpec>();
  const leave = (tool: ToolSpec) => {
    leftOut.add(tool);
    over--;
  };
  for (const tool of [...tools].reverse()) if (over > 0 && tool.remote) leave(tool);
  for (const tool of tools) if (over > 0 && !leftOut.has(tool)) leave(tool);
  console.warn(`tools left out: the model server takes at most ${max}`, [...leftOut].map((tool) => tool.name));
  return tools.filter((tool) => !leftOut.has(tool));
}
