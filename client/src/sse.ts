/** A turn's SSE body as typed events, parsed with eventsource-parser (comments, heartbeats, dropped). */
import { EventSourceParserStream } from 'eventsource-parser/stream';
import type { TurnEvent } from './types.js';

export async function* readTurnEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<TurnEvent> {
  // DOM's typings take a decoder's input as any BufferSource; a byte stream is one.
  const decoder = new TextDecoderStream() as unknown as ReadableWritablePair<string, Uint8Array>;
  const reader = body.pipeThrough(decoder).pipeThrough(new EventSourceParserStream()).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield { event: value.event, data: JSON.parse(value.data), id: Number(value.id) } as TurnEvent;
    }
  } finally {
    // Leaving early (a break, a throw, a turn_stop) releases the connection.
    reader.cancel().catch(() => {});
  }
}
