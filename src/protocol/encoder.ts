/**
 * The one interface of a wire format: a pure function of the internal event stream (with the state
 * it keeps between events), giving zero or more wire items per event. Transport is elsewhere.
 */
import type { AgentEvent } from '../agent/events';

export interface WireEncoder<Item> {
  encode(event: AgentEvent): Item[];
}

/** An SSE event before framing: its `event:` name and the JSON of its `data:`. */
export type SseItem = { event: string; data: unknown };

/** SSE items of a format whose events name themselves by `type` (pi, AG-UI): `event:` is the type. */
export function typedSse<Item extends { type: string }>(encoder: WireEncoder<Item>): WireEncoder<SseItem> {
  return { encode: (event) => encoder.encode(event).map((item) => ({ event: item.type, data: item })) };
}
