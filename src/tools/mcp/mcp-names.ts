import { functionName } from '../../api/function-names';

/**
 * The name a model sees for an MCP tool: `server__tool`, in the alphabet providers take for function
 * names (`api/function-names.ts`). Built-in tools have no `__`, and server names are unique, so an
 * MCP tool never takes another's name (two tools of one server that read alike after the cleaning
 * keep the first).
 */
export const MCP_SEPARATOR = '__';

export function mcpToolName(server: string, tool: string): string {
  return functionName(`${server}${MCP_SEPARATOR}${tool}`);
}
