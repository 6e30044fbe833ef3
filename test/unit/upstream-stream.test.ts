/**
 * Reading a model's SSE body (`sseBatches`): a byte stream, as the runtime's fetch gives, is read in
 * large reads into one buffer used again (bench/PROFILE.md, "What reading costs"); a stream made in
 * JavaScript is read as it comes. Either way, however the bytes are cut (inside an event, inside a
 * character of several bytes), the same messages come out, one batch per read, and a body that ends
 * early says so. Its timer is cleared however it ends. A body its provider has finished is read to its
 * end, so that the runtime keeps its connection; one left early is cancelled.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bodyReader, isErrorPart, sseBatches, upstreamFailure, type SseMessage } from '../../src/providers/upstream-stream';
import { UpstreamTimer } from '../../src/providers/upstream-timer';

const TEXT = ['data: {"a":"héllo"}', 'event: delta\ndata: {"b":"wörld ✓ 𝄞"}', 'data: [DONE]'].map((event) => `${event}\n\n`).join('');
const BYTES = new TextEncoder().encode(TEXT);
const EXPECTED: SseMessage[] = [
  { event: undefined, data: '{"a":"héllo"}' },
  { event: 'delta', data: '{"b":"wörld ✓ 𝄞"}' },
  { event: undefined, data: '[DONE]' },
];

/** The bytes cut at `cuts`, enqueued one piece per pull: as bytes (`type: 'bytes'`) or as plain chunks. */
function body(bytes: Uint8Array, cuts: number[], asBytes: boolean): ReadableStream<Uint8Array> {
  const points = [...new Set([0, ...cuts.map((cut) => cut % (bytes.length + 1)), bytes.length])].sort((a, b) => a - b);
  const pieces = points.slice(1).map((end, index) => bytes.slice(points[index], end));
  const source = {
    pull(controller: ReadableStreamDefaultController<Uint8Array> | ReadableByteStreamController) {
      const piece = pieces.shift();
      if (piece === undefined) controller.close();
      else controller.enqueue(piece);
    },
  };
  return asBytes ? new ReadableStream({ type: 'bytes', ...source } as UnderlyingByteSource) : new ReadableStream<Uint8Array>(source as UnderlyingSource<Uint8Array>);
}

async function read(stream: ReadableStream<Uint8Array>): Promise<{ messages: SseMessage[]; errors: string[] }> {
  const signal = new AbortController().signal;
  const timer = new UpstreamTimer({ connectMs: 10_000, firstByteMs: 10_000, idleMs: 10_000 }, signal);
  const messages: SseMessage[] = [];
  const errors: string[] = [];
  try {
    for await (const batch of sseBatches(async () => stream, timer, upstreamFailure(timer, signal), 'test', 'its [DONE]')) {
      if (isErrorPart(batch)) errors.push(batch.message);
      else {
        // A read that completes no message hands on nothing.
        expect(batch.length).toBeGreaterThan(0);
        messages.push(...batch);
      }
    }
  } finally {
    timer.clear();
  }
  return { messages, errors };
}

describe('sseBatches', () => {
  it('reads the same messages from a byte stream and from a plain one, however the bytes are cut', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(), { maxLength: 12 }), fc.boolean(), async (cuts, asBytes) => {
        const { messages, errors } = await read(body(BYTES, cuts, asBytes));
        expect(messages).toEqual(EXPECTED);
        expect(errors).toEqual(['The model stream ended before its [DONE].']);
      }),
      { numRuns: 60 },
    );
  });

  it('hands on the error part its body was opened to, as its only item, and clears the timer', async () => {
    const signal = new AbortController().signal;
    const timer = new UpstreamTimer({ connectMs: 20, firstByteMs: 20, idleMs: 20 }, signal);
    const fail = upstreamFailure(timer, signal);
    const items = [];
    for await (const item of sseBatches(async () => fail('upstream_unreachable', 'unreachable', true), timer, fail, 'test', 'its [DONE]')) items.push(item);
    expect(items).toEqual([{ type: 'error', code: 'upstream_unreachable', message: 'unreachable', retryable: true }]);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(timer.fired).toBe(false);
  });

  it('clears the timer when its reader stops early: the timeout never fires after it', async () => {
    const signal = new AbortController().signal;
    const timer = new UpstreamTimer({ connectMs: 20, firstByteMs: 20, idleMs: 20 }, signal);
    // A body that sends one message, then nothing, and never ends.
    const stream = new ReadableStream<Uint8Array>({ start: (controller) => controller.enqueue(new TextEncoder().encode('data: {}\n\n')) });
    for await (const batch of sseBatches(async () => stream, timer, upstreamFailure(timer, signal), 'test', 'its [DONE]')) {
      expect(batch).toEqual([{ event: undefined, data: '{}' }]);
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(timer.fired).toBe(false);
    expect(timer.signal.aborted).toBe(false);
  });

  /** A body of `TEXT` and then `after` more pieces, one per pull, that tells whether it was read to its end or cancelled. */
  function watched(after: number) {
    const seen = { ended: false, cancelled: false };
    const pieces = [BYTES.slice(), ...Array.from({ length: after }, () => new TextEncoder().encode(': more\n\n'))];
    const stream = new ReadableStream({
      type: 'bytes',
      pull(controller: ReadableByteStreamController) {
        const piece = pieces.shift();
        if (piece) controller.enqueue(piece);
        else {
          seen.ended = true;
          controller.close();
        }
      },
      cancel: () => void (seen.cancelled = true),
    } as UnderlyingByteSource);
    return { stream, seen };
  }

  async function leaveAtDone(stream: ReadableStream<Uint8Array>, finished: boolean): Promise<void> {
    const signal = new AbortController().signal;
    const timer = new UpstreamTimer({ connectMs: 10_000, firstByteMs: 10_000, idleMs: 10_000 }, signal);
    for await (const batch of sseBatches(async () => stream, timer, upstreamFailure(timer, signal), 'test', 'its [DONE]', () => finished)) {
      if (!isErrorPart(batch) && batch.some((message) => message.data === '[DONE]')) break;
    }
  }

  it('reads a body its provider has finished to its end, in the background, and does not cancel it', async () => {
    const { stream, seen } = watched(3);
    await leaveAtDone(stream, true);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(seen).toEqual({ ended: true, cancelled: false });
  });

  it('cancels a body left before its provider has finished (a reader that stopped early)', async () => {
    const { stream, seen } = watched(3);
    await leaveAtDone(stream, false);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(seen).toEqual({ ended: false, cancelled: true });
  });

  it('reads a body longer than one read, the buffer used again, byte for byte', async () => {
    const events = Array.from({ length: 6000 }, (_, index) => `data: {"n":${index},"t":"ünïcode ${'x'.repeat(index % 50)}"}\n\n`);
    const bytes = new TextEncoder().encode(events.join(''));
    expect(bytes.length).toBeGreaterThan(3 * 64 * 1024);
    const cuts = Array.from({ length: 400 }, (_, index) => (index * 7919) % bytes.length);
    for (const asBytes of [true, false]) {
      const { messages } = await read(body(bytes, cuts, asBytes));
      expect(messages.map((message) => JSON.parse(message.data).n)).toEqual(events.map((_, index) => index));
      expect(messages.at(-1)?.data).toBe(`{"n":5999,"t":"ünïcode ${'x'.repeat(5999 % 50)}"}`);
    }
  });

  it('reads a Response body, a byte stream in the runtime, to the same messages', async () => {
    expect(() => new Response(BYTES).body!.getReader({ mode: 'byob' }).releaseLock()).not.toThrow();
    const { messages } = await read(new Response(BYTES).body!);
    expect(messages).toEqual(EXPECTED);
  });

  it('takes what a byte stream has buffered in one read, up to 64 KiB; a plain stream chunk by chunk', async () => {
    const chunks = Array.from({ length: 300 }, (_, index) => new TextEncoder().encode(`data: {"n":${index}}\n\n`.padEnd(300, ' ')));
    const buffered = (type?: 'bytes') =>
      new ReadableStream({
        ...(type ? { type } : {}),
        start(controller: ReadableByteStreamController | ReadableStreamDefaultController<Uint8Array>) {
          for (const chunk of chunks) controller.enqueue(chunk);
          controller.close();
        },
      } as UnderlyingByteSource);
    const sizes = async (stream: ReadableStream<Uint8Array>) => {
      const reader = bodyReader(stream);
      const read: number[] = [];
      for (let next = await reader.read(); !next.done; next = await reader.read()) read.push(next.value.byteLength);
      return read;
    };
    // 90,000 bytes buffered: one full read of 64 KiB, then the rest.
    expect(await sizes(buffered('bytes'))).toEqual([65_536, 90_000 - 65_536]);
    expect(await sizes(buffered())).toEqual(chunks.map((chunk) => chunk.byteLength));
  });
});
