/**
 * MCP's HTTP+SSE transport (the 2024-11-05 revision's; deprecated since 2025-03-26, and still all some
 * servers speak): the client opens an event stream with GET, whose first event (`endpoint`) names the
 * URL to POST each message to; the server takes a POST with `202` and sends its response on the
 * stream. The session's MCP client (`mcp-client.ts`) falls back to it when a server's URL takes no
 * POST, as MCP asks of a client that speaks to older servers. The stream lasts a turn's connection.
 */
import { rpcResponseSchema, type RpcResponse } from '../../api/json-rpc';
import { releaseResponse } from '../../lib/release-body';
import { parseJson } from '../../lib/parse-json';
import { sseEvents } from './mcp-wire';

type Waiter = { resolve: (response: RpcResponse) => void; reject: (error: Error) => void };

export class SseChannel {
  private readonly waiting = new Map<number, Waiter>();
  /** Why the stream is over, once it is: no response comes on it any more. */
  private endedBy: Error | undefined;

  private constructor(
    /** Where each message goes. */
    readonly postUrl: string,
    private readonly stream: AbortController,
  ) {}

  /** Opens the stream and waits for its `endpoint` event, which must name a URL of the server's own origin. */
  static async open(url: string, headers: Record<string, string>, fetcher: typeof fetch, timeoutMs: number): Promise<SseChannel> {
    const stream = new AbortController();
    let late = false;
    const timer = setTimeout(() => {
      late = true;
      stream.abort();
    }, timeoutMs);
    try {
      const answer = await fetcher(url, { method: 'GET', headers: { ...headers, accept: 'text/event-stream' }, signal: stream.signal });
      if (!answer.ok || !answer.body || !(answer.headers.get('content-type') ?? '').includes('text/event-stream')) {
        releaseResponse(answer);
        throw new Error(`The MCP server takes no POST at its URL, and answered GET with HTTP ${answer.status}, not an event stream.`);
      }
      const events = sseEvents(answer.body);
      let postUrl: string | undefined;
      while (postUrl === undefined) {
        const next = await events.read();
        if (next.done) throw new Error('The MCP server’s event stream ended before it named where to send messages.');
        if (next.value.event === 'endpoint') postUrl = new URL(next.value.data.trim(), url).href;
      }
      if (new URL(postUrl).origin !== new URL(url).origin) throw new Error('The MCP server named an endpoint of another origin.');
      const channel = new SseChannel(postUrl, stream);
      void channel.read(events);
      return channel;
    } catch (error) {
      stream.abort();
      throw late ? new Error(`The MCP server’s event stream did not open within ${timeoutMs} ms.`) : error;
    } finally {
      clearTimeout(timer);
    }
  }

  get ended(): boolean {
    return this.endedBy !== undefined;
  }

  /** The response to request `id`, when it comes on the stream; given up with `signal`. */
  response(id: number, signal: AbortSignal): Promise<RpcResponse> {
    if (this.endedBy) return Promise.reject(this.endedBy);
    return new Promise<RpcResponse>((resolve, reject) => {
      const stop = () => {
        this.waiting.delete(id);
        reject(new Error('given up'));
      };
      if (signal.aborted) return stop();
      signal.addEventListener('abort', stop, { once: true });
      const done = () => signal.removeEventListener('abort', stop);
      this.waiting.set(id, {
        resolve: (response) => (done(), resolve(response)),
        reject: (error) => (done(), reject(error)),
      });
    });
  }

  /** Stops waiting for `id` (its POST was refused). */
  forget(id: number): void {
    this.waiting.get(id)?.reject(new Error('refused'));
    this.waiting.delete(id);
  }

  close(): void {
    this.end(new Error('The MCP connection was closed.'));
    this.stream.abort();
  }

  /** Hands each response on the stream to its waiter; the server's notifications and requests are passed over. */
  private async read(events: ReadableStreamDefaultReader<{ event?: string; data: string }>): Promise<void> {
    try {
      for (;;) {
        const next = await events.read();
        if (next.done) break;
        if (next.value.event !== undefined && next.value.event !== 'message') continue;
        const response = rpcResponseSchema.safeParse(parseJson(next.value.data));
        if (!response.success || typeof response.data.id !== 'number') continue;
        this.waiting.get(response.data.id)?.resolve(response.data);
        this.waiting.delete(response.data.id);
      }
    } catch {
      // Broken, or closed by us: either way it is over.
    }
    this.end(new Error('The MCP server’s event stream ended.'));
  }

  private end(reason: Error): void {
    this.endedBy ??= reason;
    for (const waiter of this.waiting.values()) waiter.reject(this.endedBy);
    this.waiting.clear();
  }
}
