/** What the test MCP server has logged so far (test/helpers/mcp-server.ts), read from inside workerd. */
import { env } from 'cloudflare:workers';
import type { McpLog } from './mcp-fixtures';

/** The test MCP server's address. */
export const mcpUrl = env.MCP_TEST_URL!;

export async function mcpLog(): Promise<McpLog> {
  return (await fetch(`${mcpUrl}/__log`)).json() as Promise<McpLog>;
}
