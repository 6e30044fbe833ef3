/**
 * The transport every streaming provider shares: opening the request within the connect timeout,
 * then reading SSE messages, each within the first-byte or idle timeout. Failures come back as error
 * parts (a cancel as `cancelled`, a timeout as `upstream_timeout`), never as exceptions.
 */
import { createParser } from 'eventsource-parser';
import { releaseBody } from '../lib/release-body';
import type { ModelStreamPart } from './types';
import { httpErrorPart, type ErrorPart } from './upstream-errors';
import { UpstreamTimer, type UpstreamTimeouts } from './upstream-timer';

const BROKE_OFF = 'The model stream broke off before it finished.';

export type Fail = (code: string, message: string, retryable: boolean) => ErrorPart;

export type SseMessage = { event?: string | undefined; data: string };

/** An error part that says what really happened: a cancel, a timeout, or the given failure. */
export function upstreamFailure(timer: UpstreamTimer, signal: AbortSignal): Fail {
  return (code, message, retryable) => {
    if (signal.aborted) return { type: 'error', code: 'cancelled', message: 'The turn was cancelled.' };
    if (timer.fired) return { type: 'error', code: 'upstream_timeout', message: timer.describe(), retryable: true };
    return { type: 'error', code, message, retryable };
  };
}

/** How a provider's body is opened: its bytes, or the error part that stands for them. */
export type OpenBody = () => Promise<ReadableStream<Uint8Array> | ErrorPart>;

/**
 * What a provider makes of one SSE message of its stream: its parts, pushed onto the batch of the
 * read that brought it; and, when the stream ends with this message (its finish, or an error), that
 * last part, returned (`partBatches` adds it and stops). `cut`, where a provider has one: the last
 * part when the body ends or breaks before the message that ends the stream, but after the provider
 * said how its answer finished (a server that never sends its `[DONE]`); undefined when the answer
 * was cut short.
 */
export type MessageReader = ((message: SseMessage, parts: ModelStreamPart[]) => ModelStreamPart | undefined) & {
  cut?: () => ModelStreamPart | undefined;
};

/**
 * A provider's whole stream over HTTP: `send` the request under the timeouts, then read its body's
 * messages into parts (`partBatches`), with a reader made for this stream (it may keep state, such
 * as the finish reason seen before the end).
 */
export function streamOverHttp(
  provider: string,
  signal: AbortSignal,
  timeouts: UpstreamTimeouts,
  send: (signal: AbortSignal) => Promise<Response>,
  awaited: string,
  reader: (fail: Fail) => MessageReader,
): AsyncGenerator<ModelStreamPart[]> {
  const timer = new UpstreamTimer(timeouts, signal);
  const fail = upstreamFailure(timer, signal);
  return partBatches(() => openHttpStream(provider, send, timer, fail), timer, fail, provider, awaited, reader(fail));
}

/**
 * A provider's parts, one batch per read of the network (`sseBatches`), as `stream()` yields them
 * (`types.ts`): never an empty batch, and an error part (or any part that ends the stream) last. This
 * generator is the provider's stream itself, not one wrapped in another: a generator that hands on
 * another's parts (`yield*`) cost each delta of a long answer a tenth more (bench/PROFILE.md, "Fewer
 * hops per delta").
 */
export async function* partBatches(open: OpenBody, timer: UpstreamTimer, fail: Fail, provider: string, awaited: string, read: MessageReader): AsyncGenerator<ModelStreamPart[]> {
  let finished = false;
  for await (const batch of sseBatches(open, timer, fail, provider, awaited, () => finished)) {
    if (isErrorPart(batch)) {
      yield [(batch.code === 'upstream_cut' && read.cut?.()) || batch];
      return;
    }
    const parts: ModelStreamPart[] = [];
    for (const message of batch) {
      const last = read(message, parts);
      if (last) {
        parts.push(last);
        // The provider has its last message: what may follow is the body's end (`releaseBody`).
        finished = true;
        yield parts;
        return;
      }
    }
    if (parts.length > 0) yield parts;
  }
}

/** Sends an HTTP request; its streamed body, or the error part that stands for it. */
export async function openHttpStream(
  provider: string,
  send: (signal: AbortSignal) => Promise<Response>,
  timer: UpstreamTimer,
  fail: Fail,
): Promise<ReadableStream<Uint8Array> | ErrorPart> {
  let response: Response;
  try {
    response = await send(timer.signal);
  } catch (cause) {
    if (!timer.signal.aborted) console.error(`${provider}: request failed`, cause);
    return fail('upstream_unreachable', 'The model server could not be reached.', true);
  }
  if (!response.ok || !response.body) return httpErrorPart(response, provider);
  timer.enter('first-byte');
  return response.body;
}

/** How much one read of a body may bring: everything the network has buffered, up to this. */
const READ_BYTES = 64 * 1024;

/**
 * Reads a body in reads as large as what has arrived (up to `READ_BYTES`), into one buffer used
 * again and again: a body read with the default reader comes in the network's small chunks, and
 * each chunk that enters JavaScript costs more than the bytes it brings (bench/PROFILE.md, "What
 * reading costs"). A read still resolves as soon as any byte has come, so the first event never
 * waits. A stream that is not a byte stream (made in JavaScript, as in tests) is read as it comes.
 */
export function bodyReader(body: ReadableStream<Uint8Array>): { read: () => Promise<ReadableStreamReadResult<Uint8Array>>; cancel: () => Promise<void> } {
  let byob: ReadableStreamBYOBReader;
  try {
    byob = body.getReader({ mode: 'byob' });
  } catch {
    const reader = body.getReader();
    return { read: () => reader.read(), cancel: () => reader.cancel() };
  }
  let buffer = new ArrayBuffer(READ_BYTES);
  return {
    read: async () => {
      const next = await byob.read(new Uint8Array(buffer));
      // The read hands the buffer back in its view: the next read fills it again (each read's bytes
      // are decoded before the next read starts).
      if (next.value) buffer = next.value.buffer as ArrayBuffer;
      return next as ReadableStreamReadResult<Uint8Array>;
    },
    cancel: () => byob.cancel(),
  };
}

/**
 * The SSE messages of a body, one batch per read of the network, once `open` gave it (or its error
 * part, handed on as the only item). A body that breaks off or ends before the provider saw its last
 * message yields one error part (`upstream_cut`, saying what was awaited) and stops. One read gives
 * many messages: they are parsed together and handed on together, not one by one through streams or
 * generators (each hop of an async generator cost every delta of a long answer more than its parse,
 * bench/PROFILE.md, "Fewer hops per delta"). The timer is cleared however it ends. A body left
 * once its provider saw its last message (`finished`) is read to its end (`releaseBody`); one left
 * otherwise (a cancel, a timeout, a reader that stopped early) is cancelled.
 */
export async function* sseBatches(
  open: OpenBody,
  timer: UpstreamTimer,
  fail: Fail,
  provider: string,
  awaited: string,
  finished: () => boolean = () => false,
): AsyncGenerator<SseMessage[] | ErrorPart> {
  let reader: ReturnType<typeof bodyReader> | undefined;
  let stop = () => {};
  try {
    const body = await open();
    if (!(body instanceof ReadableStream)) {
      yield body;
      return;
    }
    reader = bodyReader(body);
    // A body that ignores the abort still ends: the cancel ends the pending read.
    stop = () => void reader?.cancel().catch(() => {});
    timer.signal.addEventListener('abort', stop, { once: true });
    const decoder = new TextDecoder();
    let parsed: SseMessage[] = [];
    const parser = createParser({ onEvent: ({ event, data }) => void parsed.push({ event, data }) });
    for (;;) {
      let next: ReadableStreamReadResult<Uint8Array>;
      try {
        next = await reader.read();
      } catch (cause) {
        if (!timer.signal.aborted) console.error(`${provider}: stream broke`, cause);
        yield fail('upstream_cut', BROKE_OFF, true);
        return;
      }
      if (next.done) {
        // Ended by the abort's cancel, it broke off (`fail` names a cancel or a timeout for what it is).
        yield fail('upstream_cut', timer.signal.aborted ? BROKE_OFF : `The model stream ended before ${awaited}.`, true);
        return;
      }
      timer.alive();
      parser.feed(decoder.decode(next.value, { stream: true }));
      if (parsed.length === 0) continue;
      const messages = parsed;
      parsed = [];
      yield messages;
    }
  } finally {
    timer.signal.removeEventListener('abort', stop);
    if (reader && finished() && !timer.signal.aborted) releaseBody(reader);
    else stop();
    timer.clear();
  }
}

export const isErrorPart = (batch: SseMessage[] | ErrorPart): batch is ErrorPart => 'type' in batch;
