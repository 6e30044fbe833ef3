/**
 * What the session's MCP client reads off the wire (`mcp-client.ts`): a response found in a JSON or
 * SSE answer, a refusal's JSON-RPC error, and a deadline for each exchange.
 */
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { rpcResponseSchema, type RpcResponse } from '../../api/json-rpc';
import { parseJson } from '../../lib/parse-json';
import { releaseBody, releaseResponse } from '../../lib/release-body';

/** What `within` throws when the caller's signal or the deadline ended the work. */
export class GaveUp extends Error {
  constructor(readonly timedOut: boolean) {
    super(timedOut ? 'timed out' : 'cancelled');
  }
}

/**
 * Runs `work` with a signal that aborts at the deadline or with `outer`. The deadline's timer is
 * cleared when the work ends: a pending timer would keep the session's object awake.
 */
export async function within<T>(ms: number, outer: AbortSignal | undefined, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
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

/** The response with this id in an answer that came back `2xx`, JSON or SSE. */
export async function responseIn(answer: Response, id: number): Promise<RpcResponse | undefined> {
  if (!answer.body) return undefined;
  const type = answer.headers.get('content-type') ?? '';
  return type.includes('text/event-stream') ? responseInStream(answer.body, id) : findResponse(await answer.json(), id);
}

/** A refusal (`4xx`, `5xx`): its status, its text, and the JSON-RPC error it holds, if any. */
export type Refusal = { status: number; text: string; error?: { code: number; message: string; data?: unknown } };

export async function readRefusal(answer: Response): Promise<Refusal> {
  if (!answer.body) return { status: answer.status, text: '' };
  const type = answer.headers.get('content-type') ?? '';
  if (!type.includes('json') && !type.includes('text/plain')) {
    releaseResponse(answer);
    return { status: answer.status, text: '' };
  }
  const text = (await answer.text().catch(() => '')).slice(0, 4000);
  const found = rpcResponseSchema.safeParse(parseJson(text));
  return { status: answer.status, text, ...(found.success && 'error' in found.data ? { error: found.data.error } : {}) };
}

/** A body's server-sent events, read one at a time. */
export function sseEvents(body: ReadableStream<Uint8Array>): ReadableStreamDefaultReader<{ event?: string; data: string }> {
  return body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
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
  const events = sseEvents(body);
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
