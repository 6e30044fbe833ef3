/**
 * An MCP client over Streamable HTTP (docs/mcp.md), the part of the protocol a session needs to use
 * a server's tools: the `initialize` handshake (keeping the server's `Mcp-Session-Id` and the agreed
 * version), `tools/list` and `tools/call`, each answered as JSON or as an SSE stream, a cancel told
 * to the server (`notifications/cancelled`), and the session ended with `DELETE`. Written on fetch
 * and the project's schemas rather than the official SDK, which alone was about 40 % of the Worker's
 * bundle (bench/PROFILE.md); the tests hold it to the SDK's own server.
 */
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { rpcResponseSchema, type RpcResponse } from '../../api/json-rpc';
import {
  callToolResultSchema,
  initializeResultSchema,
  LATEST_MCP_PROTOCOL_VERSION,
  listToolsResultSchema,
  MCP_PROTOCOL_VERSIONS,
  type CallToolResult,
  type ListToolsResult,
} from '../../api/mcp-messages';
import { releaseBody, releaseResponse } from '../../lib/release-body';
import type * as z from '../../lib/zod';

const CLIENT_INFO = { name: 'edge-agent-turns', version: '0.1.0' };

/** How long a cancel's delivery, or the session's end, may take before the client stops waiting. */
const NOTICE_TIMEOUT_MS = 2000;

export class McpClient {
  private sessionId: string | undefined;
  private protocolVersion: string = LATEST_MCP_PROTOCOL_VERSION;
  private nextId = 1;
  /** Cancels on their way to the server: closing waits for them, or they would be cut off. */
  private readonly notices = new Set<Promise<void>>();

  constructor(
    private readonly url: string,
    private readonly headers: Record<string, string>,
    private readonly fetcher: typeof fetch,
  ) {}

  /** The handshake: `initialize`, then `notifications/initialized`. */
  async connect(timeoutMs: number): Promise<void> {
    const params = { protocolVersion: LATEST_MCP_PROTOCOL_VERSION, capabilities: {}, clientInfo: CLIENT_INFO };
    const result = await this.request('initialize', params, initializeResultSchema, { timeoutMs });
    if (!(MCP_PROTOCOL_VERSIONS as readonly string[]).includes(result.protocolVersion)) {
      throw new Error(`The server speaks MCP ${result.protocolVersion}, which this client does not.`);
    }
    this.protocolVersion = result.protocolVersion;
    await within(timeoutMs, undefined, (signal) => this.notify('notifications/initialized', {}, signal));
  }

  listTools(cursor: string | undefined, timeoutMs: number): Promise<ListToolsResult> {
    return this.request('tools/list', cursor ? { cursor } : {}, listToolsResultSchema, { timeoutMs });
  }

  callTool(name: string, args: Record<string, unknown>, options: { signal: AbortSignal; timeoutMs: number }): Promise<CallToolResult> {
    return this.request('tools/call', { name, arguments: args }, callToolResultSchema, options);
  }

  /** Waits for the cancels being delivered, then ends the server's session, if it keeps one. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.notices]);
    if (this.sessionId === undefined) return;
    await within(NOTICE_TIMEOUT_MS, undefined, async (signal) => {
      const answer = await this.fetcher(this.url, { method: 'DELETE', headers: this.headersFor(), signal });
      releaseResponse(answer);
    }).catch(() => undefined);
    this.sessionId = undefined;
  }

  private async request<Schema extends z.ZodType<Record<string, unknown>>>(
    method: string,
    params: Record<string, unknown>,
    schema: Schema,
    options: { signal?: AbortSignal; timeoutMs: number },
  ): Promise<z.infer<Schema>> {
    const id = this.nextId++;
    let response: RpcResponse;
    try {
      response = await within(options.timeoutMs, options.signal, (signal) => this.exchange(id, method, params, signal));
    } catch (error) {
      if (!(error instanceof GaveUp)) throw error;
      // The server may still be working on it: it is told to stop (not for the handshake, which it may not know yet).
      if (method !== 'initialize') this.tell(id, error.timedOut ? 'timed out' : 'cancelled');
      throw new Error(error.timedOut ? `The MCP request ${method} timed out after ${options.timeoutMs} ms.` : `The MCP request ${method} was cancelled.`);
    }
    if ('error' in response) throw new Error(`MCP error ${response.error.code}: ${response.error.message}`);
    const result = schema.safeParse(response.result);
    if (!result.success) throw new Error(`The MCP server answered ${method} in an unexpected shape.`);
    return result.data;
  }

  /** One request sent, and its response read from the JSON or SSE answer. */
  private async exchange(id: number, method: string, params: Record<string, unknown>, signal: AbortSignal): Promise<RpcResponse> {
    const answer = await this.post({ jsonrpc: '2.0', id, method, params }, signal);
    if (!answer.ok || !answer.body) {
      releaseResponse(answer);
      throw new Error(`The MCP server answered ${method} with HTTP ${answer.status}.`);
    }
    if (method === 'initialize') this.sessionId = answer.headers.get('mcp-session-id') ?? undefined;
    const type = answer.headers.get('content-type') ?? '';
    const found = type.includes('text/event-stream') ? await responseInStream(answer.body, id) : findResponse(await answer.json(), id);
    if (!found) throw new Error(`The MCP server's answer to ${method} held no response to it.`);
    return found;
  }

  /** A notification: the server answers 202 with no body. */
  private async notify(method: string, params: Record<string, unknown>, signal: AbortSignal): Promise<void> {
    const answer = await this.post({ jsonrpc: '2.0', method, params }, signal);
    releaseResponse(answer);
    if (!answer.ok) throw new Error(`The MCP server refused ${method} with HTTP ${answer.status}.`);
  }

  /** Tells the server a request is given up, without holding up the caller; `close` waits for it. */
  private tell(requestId: number, reason: string): void {
    const sent = within(NOTICE_TIMEOUT_MS, undefined, (signal) => this.notify('notifications/cancelled', { requestId, reason }, signal)).catch(() => undefined);
    this.notices.add(sent);
    void sent.finally(() => this.notices.delete(sent));
  }

  /** One JSON-RPC message to the server; the answer may be JSON or an SSE stream. */
  private post(message: Record<string, unknown>, signal: AbortSignal): Promise<Response> {
    const headers = { ...this.headersFor(), 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    return this.fetcher(this.url, { method: 'POST', headers, body: JSON.stringify(message), signal });
  }

  private headersFor(): Record<string, string> {
    return {
      ...this.headers,
      'mcp-protocol-version': this.protocolVersion,
      ...(this.sessionId !== undefined ? { 'mcp-session-id': this.sessionId } : {}),
    };
  }
}

/** What `within` throws when the caller's signal or the deadline ended the work. */
class GaveUp extends Error {
  constructor(readonly timedOut: boolean) {
    super(timedOut ? 'timed out' : 'cancelled');
  }
}

/**
 * Runs `work` with a signal that aborts at the deadline or with `outer`. The deadline's timer is
 * cleared when the work ends: a pending timer would keep the session's object awake.
 */
async function within<T>(ms: number, outer: AbortSignal | undefined, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), ms);
  const signal = outer ? AbortSignal.any([outer, deadline.signal]) : deadline.signal;
  try {
    return await work(signal);
  } catch (error) {
    if (signal.aborted) throw new GaveUp(deadline.signal.aborted);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** The response with this id in a JSON answer (one message, or a batch). */
function findResponse(json: unknown, id: number): RpcResponse | undefined {
  for (const message of Array.isArray(json) ? json : [json]) {
    const response = rpcResponseSchema.safeParse(message);
    if (response.success && response.data.id === id) return response.data;
  }
  return undefined;
}

/**
 * The response with this id in an SSE answer, read until it comes; the server's notifications and
 * requests on the way (progress, a ping) are passed over. Once it came, the rest of the stream (the
 * server ends it after the response) is read to its end in the background; a stream that ended
 * without it, or broke, is cancelled.
 */
async function responseInStream(body: ReadableStream<Uint8Array>, id: number): Promise<RpcResponse | undefined> {
  const events = body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
  let found: RpcResponse | undefined;
  try {
    for (;;) {
      const next = await events.read();
      if (next.done) return undefined;
      found = next.value.data === '' ? undefined : findResponse(parseJson(next.value.data), id);
      if (found) return found;
    }
  } finally {
    if (found) releaseBody(events);
    else void events.cancel().catch(() => undefined);
  }
}

/** JSON, or undefined for text that is not (an event that is not a message of ours). */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
