/**
 * `MCP_SERVERS`' schema (docs/mcp.md), made when a deployment sets the variable (src/config.ts). Apart
 * from `mcp-config.ts`, which reads the checked value without zod: a Worker's turn loads no zod.
 */
import * as z from '../../lib/zod';

export type McpTrust = 'trusted' | 'untrusted';

export function mcpServersSchema() {
  const trust = z.enum(['trusted', 'untrusted']);
  const server = z.strictObject({
    name: z.string().check(z.regex(/^[a-z0-9_-]{1,24}$/, { message: 'a server name is 1 to 24 characters of a-z, 0-9, "_" and "-"' })),
    url: z.url({ protocol: /^https?$/ }),
    headers: z.optional(z.record(z.string(), z.string())),
    trust: z._default(trust, 'untrusted'),
    tools: z.optional(z.record(z.string(), trust)),
  });
  return z.array(server).check(z.maxLength(16), z.refine((servers) => new Set(servers.map((entry) => entry.name)).size === servers.length, {
    message: 'two servers have the same name',
  }));
}

export type McpServers = z.infer<ReturnType<typeof mcpServersSchema>>;
