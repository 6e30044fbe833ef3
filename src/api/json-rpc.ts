/**
 * JSON-RPC 2.0's envelope, as the A2A and MCP doors speak it and the session's MCP client reads it:
 * requests, notifications and responses, the standard error codes, and an error a handler throws
 * to answer with one.
 */
import * as z from '../lib/zod';

/** JSON-RPC's error codes, and -32000, which MCP's HTTP transport uses for its own refusals. */
export const RPC_ERRORS = { parse: -32700, invalidRequest: -32600, methodNotFound: -32601, invalidParams: -32602, internal: -32603, transport: -32000 } as const;

export const rpcIdSchema = z.union([z.string(), z.int()]);
const params = z.record(z.string(), z.unknown());

export const rpcRequestSchema = z.object({ jsonrpc: z.literal('2.0'), id: rpcIdSchema, method: z.string(), params: z.optional(params) });
/**
 * A notification has no `id` member at all. A message with a method and an id that is not a valid
 * one (null, an object, a fraction) is a bad request, not a notification: taken as one, it would go
 * unanswered, and its sender would wait for an answer that never comes.
 */
export const rpcNotificationSchema = z.object({ jsonrpc: z.literal('2.0'), id: z.optional(z.never()), method: z.string(), params: z.optional(params) });
const rpcErrorSchema = z.object({ code: z.int(), message: z.string(), data: z.optional(z.unknown()) });
export const rpcResponseSchema = z.union([
  z.object({ jsonrpc: z.literal('2.0'), id: rpcIdSchema, result: params }),
  z.object({ jsonrpc: z.literal('2.0'), id: z.nullable(rpcIdSchema), error: rpcErrorSchema }),
]);
/** Any one message; a request is told from a notification by its `id`, from a response by its `method`. */
export const rpcMessageSchema = z.union([rpcRequestSchema, rpcNotificationSchema, rpcResponseSchema]);

export type RpcRequest = z.infer<typeof rpcRequestSchema>;
export type RpcMessage = z.infer<typeof rpcMessageSchema>;
export type RpcResponse = z.infer<typeof rpcResponseSchema>;
export type RpcId = z.infer<typeof rpcIdSchema>;

export const isRequest = (message: RpcMessage): message is RpcRequest => 'method' in message && 'id' in message;

/** Thrown by a method's handler: answered as a JSON-RPC error with this code. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** An error response. */
export function rpcError(id: RpcId | null, code: number, message: string, data?: unknown): { jsonrpc: '2.0'; id: RpcId | null; error: { code: number; message: string; data?: unknown } } {
  return { jsonrpc: '2.0', id, error: { code, message, ...(data !== undefined ? { data } : {}) } };
}
