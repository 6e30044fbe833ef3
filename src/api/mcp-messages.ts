/**
 * MCP's messages as this service reads them (docs/mcp.md), inside JSON-RPC's envelope
 * (`json-rpc.ts`), both ways: what assistants send `POST /mcp`, and what the deployment's MCP servers
 * answer the session's client, each result with only the fields we use (servers add their own).
 */
import * as z from '../lib/zod';
import { rpcIdSchema } from './json-rpc';

/**
 * The handshake's revisions ("legacy"), newest first: what a client asks for, the server answers with
 * if it speaks it, else its newest. The revision after them has no handshake (`mcp-headers.ts`).
 */
export const MCP_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;
export const LATEST_MCP_PROTOCOL_VERSION = MCP_PROTOCOL_VERSIONS[0];

/** `initialize`'s answer: the version the server speaks (the rest we do not use). */
export const initializeResultSchema = z.object({ protocolVersion: z.string() });

/** `server/discover`'s answer (the modern revision's): the versions the server speaks (the rest we do not use). */
export const discoverResultSchema = z.object({ supportedVersions: z.array(z.string()) });

/** `tools/list`'s answer, a page of it. */
export const listToolsResultSchema = z.object({
  tools: z.array(
    z.object({
      name: z.string().check(z.minLength(1)),
      title: z.nullish(z.string()),
      description: z.nullish(z.string()),
      inputSchema: z.looseObject({ type: z.literal('object') }),
    }),
  ),
  // `null` is not MCP's, but servers send it for "no more", as for a title or description they lack.
  nextCursor: z.nullish(z.string()),
  /** The 2026-07-28 revision's caching hint: how long the list may be kept (a bad one is none). */
  ttlMs: z.catch(z.optional(z.int().check(z.nonnegative())), undefined),
});

/** `tools/call`'s answer: its content (each block read by `mcp-result.ts`), structured content, and whether it failed. */
export const callToolResultSchema = z.object({
  content: z.nullish(z.array(z.unknown())),
  structuredContent: z.optional(z.unknown()),
  isError: z.nullish(z.boolean()),
});

/** `tools/call`'s parameters, as an assistant sends them; `_meta.progressToken` asks for progress notifications. */
export const callToolParamsSchema = z.object({
  name: z.string(),
  arguments: z.optional(z.record(z.string(), z.unknown())),
  _meta: z.optional(z.looseObject({ progressToken: z.optional(rpcIdSchema) })),
});

export type ListToolsResult = z.infer<typeof listToolsResultSchema>;
export type CallToolResult = z.infer<typeof callToolResultSchema>;
