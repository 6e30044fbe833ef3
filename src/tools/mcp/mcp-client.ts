/**
 * An MCP client over Streamable HTTP (docs/configuration.md, "MCP servers"), the part of the protocol
 * a session needs to use a server's tools, in both of MCP's eras:
 * - modern (2026-07-28): no handshake and no session; each request carries its version and client in
 *   `_meta` and its method and tool in headers (`Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`);
 * - legacy (2024-11-05 to 2025-11-25): the `initialize` handshake, the server's `Mcp-Session-Id`
 *   (begun again when the server no longer knows it), a cancel told with `notifications/cancelled`,
 *   and the session ended with `DELETE`.
 * A server's era is found by asking it `server/discover` once, as MCP asks of a client that speaks
 * both, and kept for the isolate's life; a server whose URL takes no POST at all is spoken to over the
 * 2024-11-05 revision's HTTP+SSE transport (`mcp-sse-channel.ts`). `tools/list` and `tools/call` are
 * answered as JSON or SSE.
 * Written on fetch and the project's schemas rather than the official SDK, which alone was about
 * 40 % of the Worker's bundle (bench/PROFILE.md); the tests hold it to the SDK's own servers.
 */
import type { RpcResponse } from '../../api/json-rpc';
import { headerValue, MCP_META, MODERN_MCP_PROTOCOL_VERSION } from '../../api/mcp-headers';
import {
  callToolResultSchema,
  discoverResultSchema,
  initializeResultSchema,
  LATEST_MCP_PROTOCOL_VERSION,
  listToolsResultSchema,
  MCP_PROTOCOL_VERSIONS,
  type CallToolResult,
  type ListToolsResult,
} from '../../api/mcp-messages';
import { BoundedMap } from '../../lib/bounded-map';
import { releaseResponse } from '../../lib/release-body';
import type * as z from '../../lib/zod';
import { eraGone, Reconnect, Refused, sessionGone, versionsNamed } from './mcp-refusals';
import { SseChannel } from './mcp-sse-channel';
import { GaveUp, readRefusal, responseIn, within } from './mcp-wire';

const CLIENT_INFO = { name: 'edge-agent-turns', version: '0.1.0' };
const MODERN_META = { [MCP_META.protocolVersion]: MODERN_MCP_PROTOCOL_VERSION, [MCP_META.clientInfo]: CLIENT_INFO, [MCP_META.clientCapabilities]: {} };

/** How long a cancel's delivery, or the session's end, may take before the client stops waiting. */
const NOTICE_TIMEOUT_MS = 2000;

/** The handshake's revisions over Streamable HTTP (`legacy`) or over the older HTTP+SSE transport (`sse`). */
type Era = 'modern' | 'legacy' | 'sse';
/** Each server's era as it answered, by URL: a modern server then costs no round trip to connect, a legacy one no probe. */
const eras = new BoundedMap<string, Era>(64);

/** A request's deadline, the caller's signal, and for a tool call its `Mcp-Param-*` headers (modern servers). */
type RequestOptions = { signal?: AbortSignal; timeoutMs: number; paramHeaders?: Record<string, string> };
/** What a tool call sends beside its name and arguments. */
export type CallOptions = RequestOptions & { signal: AbortSignal };

export class McpClient {
  private era: Era = 'legacy';
  private sessionId: string | undefined;
  /** The event stream of the HTTP+SSE transport, while connected in that era. */
  private channel: SseChannel | undefined;
  private protocolVersion: string = LATEST_MCP_PROTOCOL_VERSION;
  private nextId = 1;
  /** The handshake's own deadline, for a connection begun again. */
  private connectTimeoutMs = NOTICE_TIMEOUT_MS;
  /** Counts connections: a request that met a refusal connects again only if none began since it was sent. */
  private generation = 0;
  /** A connection begun again after a refusal: the requests that met it wait for the one. */
  private renewal: Promise<void> | undefined;
  /** Cancels on their way to the server: closing waits for them, or they would be cut off. */
  private readonly notices = new Set<Promise<void>>();

  constructor(
    private readonly url: string,
    private readonly headers: Record<string, string>,
    private readonly fetcher: typeof fetch,
  ) {}

  /** Connects in the server's era: none to make for a modern server, the handshake for a legacy one (over a new event stream for the HTTP+SSE transport). */
  async connect(timeoutMs: number): Promise<void> {
    this.connectTimeoutMs = timeoutMs;
    this.generation++;
    this.sessionId = undefined;
    const known = eras.get(this.url);
    if (known === 'sse') {
      // A server moved on from that transport is found again on the next connection.
      return this.handshake(timeoutMs, 'sse').catch((error: unknown) => {
        eras.delete(this.url);
        throw error;
      });
    }
    const offered = known === undefined ? await this.discover(timeoutMs) : known === 'modern' || undefined;
    if (offered === true) {
      this.era = 'modern';
      eras.set(this.url, 'modern');
      return;
    }
    try {
      await this.handshake(timeoutMs, 'legacy');
      eras.set(this.url, 'legacy');
    } catch (error) {
      // A modern server that refused our version named its own: they say more than the handshake's failure.
      if (Array.isArray(offered) && offered.length > 0) throw new Error(`The server speaks MCP ${offered.join(', ')}, which this client does not.`);
      // A URL that takes no POST (as MCP has a client tell): a server of the HTTP+SSE transport, maybe.
      if (!(known === undefined && error instanceof Refused && error.noPost)) throw error;
      await this.handshake(timeoutMs, 'sse');
      eras.set(this.url, 'sse');
    }
  }

  listTools(cursor: string | undefined, timeoutMs: number): Promise<ListToolsResult> {
    return this.request('tools/list', cursor ? { cursor } : {}, listToolsResultSchema, { timeoutMs });
  }

  callTool(name: string, args: Record<string, unknown>, options: CallOptions): Promise<CallToolResult> {
    return this.request('tools/call', { name, arguments: args }, callToolResultSchema, options, name);
  }

  /** Waits for the cancels being delivered, then ends the server's session, if it keeps one, or its stream. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.notices]);
    this.channel?.close();
    this.channel = undefined;
    if (this.sessionId === undefined) return;
    await within(NOTICE_TIMEOUT_MS, undefined, async (signal) => {
      const answer = await this.fetcher(this.url, { method: 'DELETE', headers: { ...this.headers, ...this.eraHeaders('') }, signal });
      releaseResponse(answer);
    }).catch(() => undefined);
    this.sessionId = undefined;
  }

  /**
   * `server/discover`, sent as a modern request: `true` if the server speaks the modern revision,
   * the versions it names if it is a modern server that does not, undefined for anything else (a
   * legacy server's refusal, in whatever words). Silence is an outage, not an era: it fails.
   */
  private async discover(timeoutMs: number): Promise<true | string[] | undefined> {
    const id = this.nextId++;
    const message = { jsonrpc: '2.0', id, method: 'server/discover', params: { _meta: MODERN_META } };
    try {
      return await within(timeoutMs, undefined, async (signal) => {
        const answer = await this.post(message, signal, modernHeaders('server/discover'));
        if (!answer.ok) return versionsNamed(await readRefusal(answer));
        const response = await responseIn(answer, id).catch(() => undefined);
        const result = response && 'result' in response ? discoverResultSchema.safeParse(response.result).data : undefined;
        return result?.supportedVersions.includes(MODERN_MCP_PROTOCOL_VERSION) || undefined;
      });
    } catch (error) {
      if (error instanceof GaveUp) throw new Error(`The MCP request server/discover timed out after ${timeoutMs} ms.`);
      throw error;
    }
  }

  /** The legacy handshake: `initialize`, then `notifications/initialized`, over Streamable HTTP or a new event stream. */
  private async handshake(timeoutMs: number, era: 'legacy' | 'sse'): Promise<void> {
    this.era = era;
    this.channel?.close();
    this.channel = era === 'sse' ? await SseChannel.open(this.url, this.headers, this.fetcher, timeoutMs) : undefined;
    this.protocolVersion = LATEST_MCP_PROTOCOL_VERSION;
    const params = { protocolVersion: LATEST_MCP_PROTOCOL_VERSION, capabilities: {}, clientInfo: CLIENT_INFO };
    const result = await this.request('initialize', params, initializeResultSchema, { timeoutMs });
    if (!(MCP_PROTOCOL_VERSIONS as readonly string[]).includes(result.protocolVersion)) {
      throw new Error(`The server speaks MCP ${result.protocolVersion}, which this client does not.`);
    }
    this.protocolVersion = result.protocolVersion;
    await within(timeoutMs, undefined, (signal) => this.notify('notifications/initialized', {}, signal));
  }

  /**
   * A request, sent once more on a new connection if the server's answer says the one it was sent
   * on is gone (`Reconnect`): a legacy server that no longer knows its session (restarted, ending idle
   * sessions, replicas that do not share them; MCP asks a client to begin a new one), or a server
   * that no longer answers in the era it did. The server ran nothing of the refused request, so
   * sending it again is safe. Once only. A request made while a connection is begun again waits for it.
   */
  private async request<Schema extends z.ZodMiniType<Record<string, unknown>>>(
    method: string,
    params: Record<string, unknown>,
    schema: Schema,
    options: RequestOptions,
    toolName?: string,
  ): Promise<z.infer<Schema>> {
    // (The handshake itself is how a new connection begins: it does not wait for one.)
    if (this.renewal && method !== 'initialize') await this.renewal.catch(() => undefined);
    const sentIn = this.generation;
    try {
      return await this.attempt(method, params, schema, options, toolName);
    } catch (error) {
      if (!(error instanceof Reconnect)) throw error;
      await this.reconnect(sentIn, error.message);
      return this.attempt(method, params, schema, options, toolName);
    }
  }

  /** A new connection in place of the one of generation `stale`, unless another request began one. */
  private reconnect(stale: number, reason: string): Promise<void> {
    if (this.renewal) return this.renewal;
    if (this.generation !== stale) return Promise.resolve();
    console.warn(`MCP server at ${new URL(this.url).host}: ${reason}; connecting again`);
    this.renewal = this.connect(this.connectTimeoutMs).finally(() => (this.renewal = undefined));
    return this.renewal;
  }

  private async attempt<Schema extends z.ZodMiniType<Record<string, unknown>>>(
    method: string,
    params: Record<string, unknown>,
    schema: Schema,
    options: RequestOptions,
    toolName: string | undefined,
  ): Promise<z.infer<Schema>> {
    const id = this.nextId++;
    let response: RpcResponse;
    try {
      response = await within(options.timeoutMs, options.signal, (signal) => this.exchange(id, method, params, signal, toolName, options.paramHeaders));
    } catch (error) {
      if (!(error instanceof GaveUp)) throw error;
      // The server may still be working on it: a legacy one is told to stop (not the handshake, which
      // it may not know yet); for a modern one, the answer's stream closed is the cancel.
      if (method !== 'initialize' && this.era !== 'modern') this.tell(id, error.timedOut ? 'timed out' : 'cancelled');
      throw new Error(error.timedOut ? `The MCP request ${method} timed out after ${options.timeoutMs} ms.` : `The MCP request ${method} was cancelled.`);
    }
    if ('error' in response) throw new Error(`MCP error ${response.error.code}: ${response.error.message}`);
    if (response.result.resultType === 'input_required') {
      throw new Error(`The MCP server asked for input to ${method} (a question for the user, or a model's answer), which this agent does not give.`);
    }
    const result = schema.safeParse(response.result);
    if (!result.success) throw new Error(`The MCP server answered ${method} in an unexpected shape.`);
    return result.data;
  }

  /** One request sent, and its response read from the JSON or SSE answer. */
  private async exchange(id: number, method: string, params: Record<string, unknown>, signal: AbortSignal, toolName?: string, paramHeaders?: Record<string, string>): Promise<RpcResponse> {
    const era = this.era;
    if (era === 'sse') return this.exchangeOverStream(id, method, params, signal);
    const sentInSession = this.sessionId !== undefined;
    const message = { jsonrpc: '2.0', id, method, params: era === 'modern' ? { ...params, _meta: MODERN_META } : params };
    const answer = await this.post(message, signal, { ...this.eraHeaders(method, toolName), ...(era === 'modern' ? paramHeaders : {}) });
    if (!answer.ok || !answer.body) {
      const refusal = await readRefusal(answer);
      const gone = method === 'initialize' ? undefined : era === 'modern' ? eraGone(refusal) : sentInSession ? sessionGone(refusal) : undefined;
      if (gone && era === 'modern') eras.delete(this.url);
      if (gone) throw new Reconnect(gone);
      throw new Refused(method, refusal);
    }
    if (method === 'initialize') this.sessionId = answer.headers.get('mcp-session-id') ?? undefined;
    const found = await responseIn(answer, id);
    if (!found) throw new Error(`The MCP server's answer to ${method} held no response to it.`);
    return found;
  }

  /**
   * One request over the HTTP+SSE transport: posted to the endpoint the stream named, answered on the
   * stream. A stream that ended before the request was sent is connected again (the server never saw
   * it); one that ends while the server works on it fails the request, which may have run.
   */
  private async exchangeOverStream(id: number, method: string, params: Record<string, unknown>, signal: AbortSignal): Promise<RpcResponse> {
    const channel = this.channel!;
    if (channel.ended && method !== 'initialize') throw new Reconnect('its event stream ended');
    const response = channel.response(id, signal);
    void response.catch(() => undefined);
    const answer = await this.post({ jsonrpc: '2.0', id, method, params }, signal, this.eraHeaders(method), channel.postUrl);
    if (!answer.ok) {
      channel.forget(id);
      throw new Refused(method, await readRefusal(answer));
    }
    releaseResponse(answer);
    return response;
  }

  /** A notification (legacy servers only): the server answers 202 with no body. */
  private async notify(method: string, params: Record<string, unknown>, signal: AbortSignal): Promise<void> {
    const answer = await this.post({ jsonrpc: '2.0', method, params }, signal, this.eraHeaders(method), this.channel?.postUrl);
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
  private post(message: Record<string, unknown>, signal: AbortSignal, headers: Record<string, string>, url = this.url): Promise<Response> {
    const all = { ...this.headers, ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    return this.fetcher(url, { method: 'POST', headers: all, body: JSON.stringify(message), signal });
  }

  /** The era's headers: a modern request's method and tool, or a legacy one's version and session. */
  private eraHeaders(method: string, toolName?: string): Record<string, string> {
    if (this.era === 'modern') return modernHeaders(method, toolName);
    return { 'mcp-protocol-version': this.protocolVersion, ...(this.sessionId !== undefined ? { 'mcp-session-id': this.sessionId } : {}) };
  }
}

/** A modern request's headers: its version, its method, and the tool it calls. */
function modernHeaders(method: string, toolName?: string): Record<string, string> {
  return { 'mcp-protocol-version': MODERN_MCP_PROTOCOL_VERSION, 'mcp-method': method, ...(toolName !== undefined ? { 'mcp-name': headerValue(toolName) } : {}) };
}
