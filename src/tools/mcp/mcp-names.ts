/**
 * The name a model sees for an MCP tool: `server__tool`, in the alphabet providers take for function
 * names ([A-Za-z0-9_-], at most 64). Built-in tools have no `__`, and server names are unique, so an
 * MCP tool never takes another's name (two tools of one server that read alike after the cleaning
 * keep the first).
 */
export const MCP_SEPARATOR = '__';

export function mcpToolName(server: string, tool: string): string {
  return `${server}${MCP_SEPARATOR}${tool.replace(/[^A-Za-z0-9_-]/g, '_')}`.slice(0, 64);
}
