/**
 * MCP's messages as this service reads them (docs/mcp.md): JSON-RPC 2.0 over Streamable HTTP, both
 * ways. What assistants send `POST /mcp`, and what the deployment's MCP servers answer the session's
 * client: the envelope strictly, each result with only the fields we use (servers add their own).
 */
import * as z from '../lib/zod';

/** Newest first: what a client asks for, the server answers with if it speaks it, else its newest. */
export const MCP_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;
export const LATEST_MCP_PROTOCOL_VERSION = MCP_PROTOCOL_VERSIONS[0];

/** JSON-RPC's error codes, and the one MCP's HTTP transport uses for its own refusals. */
export const RPC_ERRORS = { parse: -32700, invalidRequest: -32600, methodNotFound: -32601, invalidParams: -32602, internal: -32603, transport: -32000 } as const;

const id = z.union([z.string(), z.number().int()]);
const params = z.record(z.string(), z.unknown());

export const rpcRequestSchema = z.object({ jsonrpc: z.literal('2.0'), id, method: z.string(), params: params.optional() });
export const rpcNotificationSchema = z.object({ jsonrpc: z.literal('2.0'), method: z.string(), params: params.optional() });
const rpcErrorSchema = z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() });
export const rpcResponseSchema = z.union([
  z.object({ jsonrpc: z.literal('2.0'), id, result: params }),
  z.object({ jsonrpc: z.literal('2.0'), id: id.nullable(), error: rpcErrorSchema }),
]);
/** Any one message; a request is told from a notification by its `id`, from a response by its `method`. */
export const rpcMessageSchema = z.union([rpcRequestSchema, rpcNotificationSchema, rpcResponseSchema]);

export type RpcRequest = z.infer<typeof rpcRequestSchema>;
export type RpcMessage = z.infer<typeof rpcMessageSchema>;
export type RpcResponse = z.infer<typeof rpcResponseSchema>;
export type RpcId = z.infer<typeof id>;

export const isRequest = (message: RpcMessage): message is RpcRequest => 'method' in message && 'id' in message;

/** `initialize`'s answer: the version the server speaks (the rest we do not use). */
export const initializeResultSchema = z.object({ protocolVersion: z.string() });

/** `tools/list`'s answer, a page of it. */
export const listToolsResultSchema = z.object({
  tools: z.array(
    z.object({
      name: z.string().min(1),
      title: z.string().optional(),
      description: z.string().optional(),
      inputSchema: z.looseObject({ type: z.literal('object') }),
    }),
  ),
  nextCursor: z.string().optional(),
});

/** `tools/call`'s answer: its content (each block read by `mcp-result.ts`), structured content, and whether it failed. */
export const callToolResultSchema = z.object({
  content: z.array(z.unknown()).optional(),
  structuredContent: z.unknown().optional(),
  isError: z.boolean().optional(),
});

/** `tools/call`'s parameters, as an assistant sends them; `_meta.progressToken` asks for progress notifications. */
export const callToolParamsSchema = z.object({
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()).optional(),
  _meta: z.looseObject({ progressToken: id.optional() }).optional(),
});

export type ListToolsResult = z.infer<typeof listToolsResultSchema>;
export type CallToolResult = z.infer<typeof callToolResultSchema>;
