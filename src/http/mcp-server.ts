/**
 * A stateless MCP server over Streamable HTTP (docs/mcp.md): the transport's checks (`Accept`,
 * `Content-Type`, `MCP-Protocol-Version`, and the body's size and depth as every door's), JSON-RPC's
 * envelope, and the methods an assistant uses with a server that offers tools: `initialize`, `ping`,
 * `tools/list` and `tools/call`, and in the 2026-07-28 revision (`mcp-modern.ts`) `server/discover`,
 * `tools/list` and `tools/call` without a handshake. A call that asks for progress
 * (`_meta.progressToken`) is answered as an SSE stream, its notifications first; everything else as
 * JSON. Written on the project's
 * schemas rather than the official SDK, which alone was about 40 % of the Worker's bundle
 * (bench/PROFILE.md); the tests drive it with the SDK's own client.
 */
import { isRequest, RPC_ERRORS, RpcError, rpcError, rpcMessageSchema, type RpcId, type RpcMessage, type RpcRequest } from '../api/json-rpc';
import { MODERN_MCP_PROTOCOL_VERSION } from '../api/mcp-headers';
import { callToolParamsSchema, LATEST_MCP_PROTOCOL_VERSION, MCP_PROTOCOL_VERSIONS } from '../api/mcp-messages';
import { describeIssue } from '../lib/explain-issue';
import { TOO_DEEP_MESSAGE } from '../lib/json-depth';
import { quoted } from '../lib/quoted';
import * as z from '../lib/zod';
import { writeParameters } from '../tools/registry';
import { cancelOnLeave } from './cancel-on-leave';
import { claimsModern, discoverResult, LIST_CACHING, MODERN_BATCH, modernRefusal, unsupportedVersion, type ModernRefusal } from './mcp-modern';
import { encodingRefusal, MAX_BODY_BYTES, readBoundedJson } from './read-json-body';

export type McpToolResult = { content: { type: 'text'; text: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };

/** Tells the caller how the call goes: the MCP client sees `notifications/progress` if it asked for them. */
export type Progress = (message: string) => void;

/**
 * What a tool's run hears of its caller: `progress`, and `left`, aborted when a client of the
 * 2026-07-28 revision closes its request's stream, which that revision makes the call's cancel. (A
 * client of the handshake era may drop a stream without meaning to cancel: its run goes on.)
 */
export type ToolCall = { progress: Progress; left: AbortSignal | undefined };

export type McpTool<Shape extends z.core.$ZodShape = z.core.$ZodShape> = {
  name: string;
  description: string;
  input: Shape;
  run(args: z.infer<z.ZodMiniObject<Shape>>, call: ToolCall): Promise<McpToolResult>;
};

export type McpServerInfo = { name: string; version: string; instructions: string; tools: McpTool<any>[] };

/** The most messages one request may carry (a batch, as MCP versions before 2025-06-18 allowed). */
const MAX_BATCH = 32;

const supported = MCP_PROTOCOL_VERSIONS as readonly string[];

export async function serveMcp(request: Request, server: McpServerInfo): Promise<Response> {
  const accept = request.headers.get('accept') ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
    return refusal(406, RPC_ERRORS.transport, 'Not Acceptable: the client must accept both application/json and text/event-stream.');
  }
  if (!/^application\/json\s*(;|$)/i.test(request.headers.get('content-type') ?? '')) {
    return refusal(415, RPC_ERRORS.transport, 'Unsupported Media Type: Content-Type must be application/json.');
  }
  const version = request.headers.get('mcp-protocol-version');
  if (version !== null && version !== MODERN_MCP_PROTOCOL_VERSION && !supported.includes(version)) return refuse(unsupportedVersion(null, version));
  const body = await readBoundedJson(request);
  if ('problem' in body) {
    if (body.problem === 'too_large') return refusal(413, RPC_ERRORS.transport, `Payload Too Large: a request body is at most ${MAX_BODY_BYTES} bytes.`);
    const encoding = encodingRefusal(request, body.problem);
    if (encoding) return refusal(encoding.status, encoding.status === 415 ? RPC_ERRORS.transport : RPC_ERRORS.parse, `${encoding.status === 415 ? 'Unsupported Media Type' : 'Parse error'}: ${encoding.message}`, encoding.headers);
    return refusal(400, RPC_ERRORS.parse, body.problem === 'not_json' ? 'Parse error: the body is not JSON.' : `Parse error: ${TOO_DEEP_MESSAGE}`);
  }
  const { json } = body;
  // The 2026-07-28 revision: no handshake, and each request checked against its headers first.
  const modern = version === MODERN_MCP_PROTOCOL_VERSION || (version === null && claimsModern(json));
  if (modern && Array.isArray(json)) return refuse(MODERN_BATCH);
  const batch = Array.isArray(json) ? json : [json];
  if (batch.length === 0 || batch.length > MAX_BATCH) return refusal(400, RPC_ERRORS.invalidRequest, `Invalid Request: a batch holds 1 to ${MAX_BATCH} messages.`);
  const messages: RpcMessage[] = [];
  for (const item of batch) {
    const message = rpcMessageSchema.safeParse(item);
    if (!message.success) return refusal(400, RPC_ERRORS.invalidRequest, 'Invalid Request: not a JSON-RPC 2.0 message.');
    messages.push(message.data);
  }
  const refused = modern && isRequest(messages[0]!) ? modernRefusal(request.headers, messages[0]) : undefined;
  if (refused) return refuse(refused);
  // Notifications (`initialized`, a cancel) and responses need no answer; this server keeps no state.
  const requests = messages.filter(isRequest);
  if (requests.length === 0) return new Response(null, { status: 202 });
  // A modern client cancels by closing its stream: the request's signal (`enable_request_signal`),
  // or the stream's cancel, which workerd does not always turn into the other (workerd#6832).
  const leaving = modern ? new AbortController() : undefined;
  if (leaving) request.signal.addEventListener('abort', () => leaving.abort(), { once: true });
  const left = leaving?.signal;

  const tokens = requests.map(progressTokenOf);
  if (tokens.every((token) => token === undefined)) {
    const answers = await Promise.all(requests.map((message) => answer(message, server, { progress: () => {}, left }, modern)));
    return Response.json(Array.isArray(json) ? answers : answers[0]);
  }
  // Progress: the answers follow their notifications on one SSE stream.
  const { readable, writable } = new TransformStream<string, string>();
  const writer = writable.getWriter();
  const send = (message: unknown) => void writer.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`).catch(() => {});
  void Promise.all(
    requests.map(async (message, index) => {
      const token = tokens[index];
      let progress = 0;
      const tell: Progress = (text) => {
        if (token !== undefined) send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: ++progress, message: text } });
      };
      send(await answer(message, server, { progress: tell, left }, modern));
    }),
  ).finally(() => void writer.close().catch(() => {}));
  const stream = readable.pipeThrough(new TextEncoderStream());
  return new Response(leaving ? cancelOnLeave(stream, () => leaving.abort()) : stream, { headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } });
}

/** The token a `tools/call` gives for its progress notifications, if it wants them. */
function progressTokenOf(request: RpcRequest): RpcId | undefined {
  return request.method === 'tools/call' ? callToolParamsSchema.safeParse(request.params).data?._meta?.progressToken : undefined;
}

/** One request's response: its result (marked complete, in the 2026-07-28 revision), or its error. Never throws. */
async function answer(request: RpcRequest, server: McpServerInfo, call: ToolCall, modern: boolean): Promise<unknown> {
  try {
    const result = await dispatch(request, server, call, modern);
    return { jsonrpc: '2.0', id: request.id, result: modern ? { ...result, resultType: 'complete' } : result };
  } catch (error) {
    if (error instanceof RpcError) return rpcError(request.id, error.code, error.message);
    console.error('MCP request failed', request.method, error);
    return rpcError(request.id, RPC_ERRORS.internal, 'Internal error.');
  }
}

async function dispatch(request: RpcRequest, server: McpServerInfo, call: ToolCall, modern: boolean): Promise<Record<string, unknown>> {
  // (`modernRefusal` has answered a modern request for any other method.)
  switch (modern ? `modern ${request.method}` : request.method) {
    case 'modern server/discover':
      return discoverResult(server);
    case 'initialize': {
      const asked = request.params?.protocolVersion;
      const protocolVersion = typeof asked === 'string' && supported.includes(asked) ? asked : LATEST_MCP_PROTOCOL_VERSION;
      return { protocolVersion, capabilities: { tools: { listChanged: false } }, serverInfo: { name: server.name, version: server.version }, instructions: server.instructions };
    }
    case 'ping':
      return {};
    case 'tools/list':
      return listTools(server);
    case 'modern tools/list':
      return { ...listTools(server), ...LIST_CACHING };
    case 'tools/call':
    case 'modern tools/call':
      return callTool(request, server, call);
    default:
      throw new RpcError(RPC_ERRORS.methodNotFound, `Method not found: ${quoted(request.method)}.`);
  }
}

async function callTool(request: RpcRequest, server: McpServerInfo, call: ToolCall): Promise<McpToolResult> {
  const params = callToolParamsSchema.safeParse(request.params);
  if (!params.success) {
    const issue = describeIssue(params.error.issues[0]);
    throw new RpcError(RPC_ERRORS.invalidParams, `Invalid params: ${issue.path || 'params'}: ${issue.clause} (tools/call takes a tool name, its arguments, and _meta.progressToken, a string or an integer).`);
  }
  const tool = server.tools.find((candidate) => candidate.name === params.data.name);
  if (!tool) throw new RpcError(RPC_ERRORS.invalidParams, `Tool ${quoted(params.data.name)} not found.`);
  const args = z.object(tool.input).safeParse(params.data.arguments ?? {});
  // As MCP asks: bad arguments are a result the model can read and correct, not a protocol error;
  // each issue told as every door tells it (`describeIssue`: `message: Required: expected string`).
  if (!args.success) return { content: [{ type: 'text', text: `Input validation error: ${args.error.issues.map(toldIssue).join('; ')}.` }], isError: true };
  return tool.run(args.data, call);
}

function toldIssue(issue: z.core.$ZodIssue): string {
  const told = describeIssue(issue);
  return told.path ? `${told.path}: ${told.clause}` : told.clause;
}

function listTools(server: McpServerInfo): { tools: Record<string, unknown>[] } {
  return { tools: server.tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: inputSchemaOf(tool) })) };
}

function inputSchemaOf(tool: McpTool): Record<string, unknown> {
  return writeParameters(z.object(tool.input));
}

/** A refusal of a request in the revision's own words (its status, the request's id, its error's code and data). */
function refuse(refused: ModernRefusal): Response {
  return Response.json(rpcError(refused.id, refused.code, refused.message, refused.data), { status: refused.status });
}

/** A refusal of the whole HTTP request, in JSON-RPC's words, as MCP's transport answers one. */
function refusal(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return Response.json(rpcError(null, code, message), { status, headers });
}
