/**
 * The SSE transport: owns the stream, the framing and the heartbeat, so that callers only send
 * items. Each item is written the moment it is sent (no batching), with the `id:` it is given; a
 * comment line keeps the connection open while nothing else is sent for `heartbeatMs` (a slow tool
 * or model). A client that goes away never stops the sender: writes to a closed stream are dropped.
 * Ids are the caller's (a turn's event numbers, so that a client can resume after any of them).
 */
import type { SseItem } from '../protocol/encoder';

export const HEARTBEAT_MS = 15_000;

export type SseStream = {
  readable: ReadableStream<Uint8Array>;
  send(item: SseItem, id: string): void;
  close(): void;
};

export function createSseStream(options: { heartbeatMs?: number } = {}): SseStream {
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  const encoder = new TextEncoder();
  let open = true;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const write = (text: string) => {
    if (!open) return;
    writer.write(encoder.encode(text)).catch(() => {
      // The client went away. The turn goes on; only its transport stops.
      open = false;
      if (timer !== undefined) clearTimeout(timer);
    });
    scheduleHeartbeat();
  };
  const scheduleHeartbeat = () => {
    if (timer !== undefined) clearTimeout(timer);
    if (open) timer = setTimeout(() => write(': keep-alive\n\n'), heartbeatMs);
  };

  scheduleHeartbeat();
  return {
    readable,
    send(item, id) {
      write(formatSseEvent(item.event, id, item.data));
    },
    close() {
      if (timer !== undefined) clearTimeout(timer);
      if (!open) return;
      open = false;
      writer.close().catch(() => {});
    },
  };
}

/** One SSE event. Names and ids must not contain line breaks (they would forge fields). */
export function formatSseEvent(event: string, id: string, data: unknown): string {
  if (/[\r\n]/.test(event) || /[\r\n]/.test(id)) throw new Error('SSE event names and ids cannot contain line breaks.');
  return `event: ${event}\nid: ${id}\ndata: ${JSON.stringify(data)}\n\n`;
}
