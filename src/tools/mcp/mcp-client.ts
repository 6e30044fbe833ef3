/**
 * An MCP client over Streamable HTTP (docs/mcp.md), the part of the protocol a session needs to use
 * a server's tools: the `initialize` handshake (keeping the server's `Mcp-Session-Id` and the agreed
 * version), `tools/list` and `tools/call`, each answered as JSON or as an SSE stream, a cancel told
 * to the server (`notifications/cancelled`), a session the server no longer knows (`404`) begun again,
 * and the session ended with `DELETE`. Written on fetch
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
  /** The handshake's own deadline, for a session begun again. */
  private connectTimeoutMs = NOTICE_TIMEOUT_MS;
  /** A new session being begun after a `404`: the calls that met it wait for the one handshake. */
  private renewal: Promise<void> | undefined;
  /** Cancels on their way to the server: closing waits for them, or they would be cut off. */
  private readonly notices = new Set<Promise<void>>();

  constructor(
    private readonly url: string,
    private readonly headers: Record<string, string>,
    private readonly fetcher: typeof fetch,
  ) {}

  /** The handshake: `initialize`, then `notifications/initialized`. */
  async connect(timeoutMs: number): Promise<void> {
    this.connectTimeoutMs = timeoutMs;
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

  /**
   * A request, sent once more in a new session if the server answered that it no longer knows this
   * one (`sessionRefused`; MCP asks a client to begin a new session then): a server restarted, one
   * that ends idle sessions, replicas that do not share them. The server ran nothing of the refused
   * request, so sending it again is safe. Once only: a second refusal fails the request as any other
   * answer would. A request made while a new session is being begun waits for it.
   */
  private async request<Schema extends z.ZodType<Record<string, unknown>>>(
    method: string,
    params: Record<string, unknown>,
    schema: Schema,
    options: { signal?: AbortSignal; timeoutMs: number },
  ): Promise<z.infer<Schema>> {
    // (The handshake itself is how a new session begins: it does not wait for one.)
    if (this.renewal && method !== 'initialize') await this.renewal.catch(() => undefined);
    const sentIn = this.sessionId;
    try {
      return await this.attempt(method, params, schema, options);
    } catch (error) {
      if (!(error instanceof SessionGone)) throw error;
      await this.renew(sentIn);
      return this.attempt(method, params, schema, options);
    }
  }

  /** A new session in place of `stale`, unless another call has begun one already. */
  private renew(stale: string | undefined): Promise<void> {
    if (this.renewal) return this.renewal;
    if (this.sessionId !== stale) return Promise.resolve();
    console.warn(`MCP server at ${new URL(this.url).host}: it no longer knows its session; beginning a new one`);
    this.sessionId = undefined;
    this.renewal = this.connect(this.connectTimeoutMs).finally(() => (this.renewal = undefined));
    return this.renewal;
  }

  private async attempt<Schema extends z.ZodType<Record<string, unknown>>>(
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
    const sentIn = this.sessionId;
    const answer = await this.post({ jsonrpc: '2.0', id, method, params }, signal);
    if (!answer.ok || !answer.body) {
      const gone = sentIn !== undefined && method !== 'initialize' && (await sessionRefused(answer));
      if (!answer.bodyUsed) releaseResponse(answer);
      if (gone) throw new SessionGone();
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

/**
 * Whether an answer says the server no longer knows the session a request was sent in: `404`, as
 * MCP has it, or a `400` that names the session, as the official SDKs' own servers and examples
 * answer ("Bad Request: No valid session ID provided", "Invalid or missing session ID"); anything
 * else in a 400 is a refusal of the request itself.
 */
async function sessionRefused(answer: Response): Promise<boolean> {
  if (answer.status === 404) return true;
  if (answer.status !== 400) return false;
  const text = await answer.text().catch(() => '');
  return /session/i.test(text.slice(0, 2000));
}

/** An answer to a request sent in a session, saying the server no longer knows the session. */
class SessionGone extends Error {
  constructor() {
    super('The MCP server no longer knows the session.');
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
