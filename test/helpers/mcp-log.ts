/** What the test MCP server has logged so far (test/helpers/mcp-server.ts), read from inside workerd. */
import { env } from 'cloudflare:workers';
import type { McpLog } from './mcp-fixtures';

export async function mcpLog(): Promise<McpLog> {
  return (await fetch(`${env.MCP_TEST_URL}/__log`)).json() as Promise<McpLog>;
}

/** The numbers of the test MCP server's connections still open (a logged call's `socket` is one). */
export async function mcpOpenSockets(): Promise<number[]> {
  return (await fetch(`${env.MCP_TEST_URL}/__sockets`)).json() as Promise<number[]>;
}
