/**
 * The SSE transport: owns the stream, the framing and the heartbeat, so that callers only send
 * items. The first item of a task is written at once; the others sent in the same task are written
 * together, as one chunk, when it yields (a model's network read holds many deltas: one chunk each
 * would cost a crossing of every stream between here and the client per delta). A comment line keeps the
 * connection open while nothing else was sent for `heartbeatMs` (a slow tool or model). A client
 * that goes away never stops the sender: writes to a closed stream are dropped. Ids are the
 * caller's (a turn's event numbers, so that a client can resume after any of them).
 *
 * A client that stops reading must not hold the sender's memory: with `lag`, once more than
 * `maxChars` are written and not yet read, the stream ends with the `notice` of the last id sent
 * (from which the client resumes) rather than keep buffering. One item always goes through, however
 * large, when the client has read everything before it.
 */
import type { SseItem } from '../protocol/encoder';

export const HEARTBEAT_MS = 15_000;
/** A batch this large is written at once rather than at the end of the task. */
const MAX_BATCH_CHARS = 64 * 1024;

export type SseStream = {
  readable: ReadableStream<Uint8Array>;
  send(item: SseItem, id: string): void;
  /** A comment line (`: text`), which clients skip: a sign of life that is not an event. */
  comment(text: string): void;
  /** What the heartbeat says from now on (a queued turn's followers hear `: queued` until it starts). */
  setHeartbeat(text: string): void;
  close(): void;
};

/**
 * How items become text: SSE with named events by default. Another framing (the Harness door's
 * `data:` lines, or its JSON array) gives its own item text, heartbeat, and what opens and closes it.
 */
export type Framing = { item(item: SseItem, id: string): string; heartbeat: string; head?: string; tail?: string };

export const SSE_FRAMING: Framing = { item: (item, id) => sseEventText(item.event, id, item.json ?? JSON.stringify(item.data)), heartbeat: ': keep-alive\n\n' };

/** What a stream does with a client that falls behind: past `maxChars` unread, it ends with `notice`. */
export type LagBound = { maxChars: number; notice: (lastId: string) => SseItem };

/** `onGone`: called once if the client goes away (the stream is cancelled) before `close`. */
export function createSseStream(options: { heartbeatMs?: number; onGone?: () => void; framing?: Framing; lag?: LagBound } = {}): SseStream {
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  const framing = options.framing ?? SSE_FRAMING;
  const { readable, writable } = bytePipe();
  const writer = writable.getWriter();
  let open = true;
  /** The client went away: the turn goes on (unless `onGone` stops it); only its transport stops. */
  const gone = () => {
    if (!open) return;
    open = false;
    if (heartbeat !== undefined) clearTimeout(heartbeat);
    options.onGone?.();
  };
  // Rejects as soon as the reader cancels, not only at the next write.
  writer.closed.catch(gone);
  const encoder = new TextEncoder();
  let pending = '';
  let flushTimer: ReturnType<typeof setTimeout> | undefined;
  let heartbeat: ReturnType<typeof setTimeout> | undefined;
  let sentSinceBeat = false;
  /** Characters handed to the pipe that the client has not read yet, and the last id sent. */
  let unread = 0;
  let lastId = '0';

  const writeNow = () => {
    if (!open || pending === '') return;
    const text = pending;
    pending = '';
    unread += text.length;
    writer.write(encoder.encode(text)).then(() => (unread -= text.length), gone);
  };
  const endOfTask = () => {
    flushTimer = undefined;
    writeNow();
  };
  /** Ends the stream with the notice, for a client too far behind to keep up. */
  const cutBehind = (lag: LagBound) => {
    if (heartbeat !== undefined) clearTimeout(heartbeat);
    if (flushTimer !== undefined) clearTimeout(flushTimer);
    pending += framing.item(lag.notice(lastId), lastId);
    writeNow();
    open = false;
    writer.close().catch(() => {});
  };
  const queue = (text: string) => {
    if (!open) return;
    const behind = unread + pending.length;
    if (options.lag && behind > 0 && behind + text.length > options.lag.maxChars) return cutBehind(options.lag);
    pending += text;
    sentSinceBeat = true;
    if (flushTimer === undefined) {
      // The first item of a task goes at once (no added latency); the rest of the task's wait for its end.
      writeNow();
      flushTimer = setTimeout(endOfTask, 0);
    } else if (pending.length >= MAX_BATCH_CHARS) {
      writeNow();
    }
  };
  // One timer for the stream's life, not one per event: it beats only if nothing was sent since it last fired.
  let heartbeatText = framing.heartbeat;
  const beat = () => {
    if (!open) return;
    if (!sentSinceBeat) queue(heartbeatText);
    sentSinceBeat = false;
    heartbeat = setTimeout(beat, heartbeatMs);
  };

  heartbeat = setTimeout(beat, heartbeatMs);
  if (framing.head) pending = framing.head;
  return {
    readable,
    send(item, id) {
      queue(framing.item(item, id));
      lastId = id;
    },
    comment(text) {
      queue(`: ${text}\n\n`);
    },
    setHeartbeat(text) {
      heartbeatText = text;
    },
    close() {
      if (heartbeat !== undefined) clearTimeout(heartbeat);
      if (flushTimer !== undefined) clearTimeout(flushTimer);
      if (open && framing.tail) pending += framing.tail;
      writeNow();
      if (!open) return;
      open = false;
      writer.close().catch(() => {});
    },
  };
}

/**
 * A pipe of bytes: workerd's native one where it exists. The stream leaves the session's object over
 * RPC, and workerd pumps a native stream across without running JavaScript per chunk; a JavaScript
 * `TransformStream` costs a read in the object's isolate for every chunk (measured: the first event
 * through the object came 3 ms later, and a long answer streamed a third slower). Node has only the
 * JavaScript one.
 */
function bytePipe(): { readable: ReadableStream<Uint8Array>; writable: WritableStream<Uint8Array> } {
  const Native = (globalThis as { IdentityTransformStream?: new () => TransformStream<Uint8Array, Uint8Array> }).IdentityTransformStream;
  return Native ? new Native() : new TransformStream<Uint8Array, Uint8Array>();
}

/**
 * One SSE event whose data is JSON text (a single line: JSON.stringify writes no line break). Names
 * and ids must not contain line breaks (they would forge fields).
 */
function sseEventText(event: string, id: string, json: string): string {
  if (/[\r\n]/.test(event) || /[\r\n]/.test(id)) throw new Error('SSE event names and ids cannot contain line breaks.');
  return `event: ${event}\nid: ${id}\ndata: ${json}\n\n`;
}
