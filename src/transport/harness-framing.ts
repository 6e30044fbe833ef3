/**
 * The Harness door's two response formats (docs/harness.md, section 3), as framings of the event stream:
 * SSE with one `data:<json>` line per event and no event names, or one JSON array whose elements are
 * written as the events happen (whitespace keeps the connection alive between them).
 */
import type { Framing } from './sse-stream';

export type HarnessFormat = 'sse' | 'json';

export function harnessFraming(format: HarnessFormat): Framing {
  if (format === 'sse') return { item: ({ data, json }) => `data:${json ?? JSON.stringify(data)}\n\n`, heartbeat: ': keep-alive\n\n' };
  let first = true;
  return {
    head: '[',
    item: ({ data, json }) => {
      const separator = first ? '\n' : ',\n';
      first = false;
      return separator + (json ?? JSON.stringify(data));
    },
    heartbeat: '\n',
    tail: '\n]\n',
  };
}

/** `Accept: text/event-stream` picks SSE; anything else (JSON, or nothing) the JSON array. */
export function harnessFormatOf(accept: string | null): HarnessFormat {
  return accept !== null && /\btext\/event-stream\b/i.test(accept) ? 'sse' : 'json';
}
