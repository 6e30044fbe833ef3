/**
 * `MCP_SERVERS`: the remote MCP servers whose tools the agent offers (Streamable HTTP transport).
 * A JSON array; each server has a name (the prefix of its tools: `name__tool`), a URL, headers whose
 * values may name secrets as `${SECRET_NAME}` (set with `wrangler secret put`), and trust: a default
 * for the server and overrides per tool. The default is untrusted: a user allows each call first.
 */
import type { McpServers, McpTrust } from './mcp-servers-schema';

export type McpServerConfig = {
  name: string;
  url: string;
  /** With the secrets filled in. */
  headers: Record<string, string>;
  trustOf: (toolName: string) => McpTrust;
};

/** Fills `${NAME}` in header values from the deployment's secrets and vars; a missing one is an error. */
export function resolveMcpServers(servers: McpServers, secrets: Record<string, unknown>): McpServerConfig[] | { missing: string } {
  const resolved: McpServerConfig[] = [];
  for (const server of servers) {
    const headers: Record<string, string> = {};
    for (const [header, template] of Object.entries(server.headers ?? {})) {
      let missing: string | undefined;
      headers[header] = template.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_match, name: string) => {
        const value = secrets[name];
        if (typeof value !== 'string' || value === '') missing ??= name;
        return typeof value === 'string' ? value : '';
      });
      if (missing) return { missing: `${missing} (in a header of the MCP server "${server.name}")` };
    }
    const overrides = server.tools ?? {};
    resolved.push({ name: server.name, url: server.url, headers, trustOf: (tool) => overrides[tool] ?? server.trust });
  }
  return resolved;
}
