/**
 * The one interface of a wire format: a pure function of the internal event stream (with the state
 * it keeps between events), giving zero or more wire items per event. Transport is elsewhere.
 */
import type { AgentEvent } from '../agent/events';

export interface WireEncoder<Item> {
  encode(event: AgentEvent): Item[];
}

/**
 * A wire format as a table: for each internal event type, the small handler that gives that event's
 * items. Exhaustive by type: a table that misses one does not compile, so a new event type is a
 * decision every format makes.
 */
export type EncoderTable<Item> = { [Type in AgentEvent['type']]: (event: Extract<AgentEvent, { type: Type }>) => Item[] };

/** The encoder a table makes. */
export function tableEncoder<Item>(table: EncoderTable<Item>): WireEncoder<Item> {
  return { encode: (event) => (table[event.type] as (event: AgentEvent) => Item[])(event) };
}

/** The handler of an event a format does not show. */
export const nothing = (): never[] => [];

/** Table entries for the events a format does not show, by name: `...ignoring('step-start', ...)`. */
export function ignoring<Type extends AgentEvent['type']>(...types: Type[]): Record<Type, typeof nothing> {
  return Object.fromEntries(types.map((type) => [type, nothing])) as Record<Type, typeof nothing>;
}

/**
 * An SSE event before framing: its `event:` name and the JSON of its `data:`. `json`, where an
 * encoder gives it, is `data` already serialized (from parts it serialized once for many events).
 */
export type SseItem = { event: string; data: unknown; json?: string };

/**
 * SSE items of a format whose events name themselves by `type` (pi, AG-UI, Harness): `event:` is the
 * type. `spliced`, where a format gives it, writes the JSON of its most frequent items itself (the
 * same text `JSON.stringify` gives; `pi-sse.ts`, `harness-sse.ts`), undefined for the rest.
 */
export function typedSse<Item extends { type: string }>(encoder: WireEncoder<Item>, spliced?: (item: Item) => string | undefined): WireEncoder<SseItem> {
  return {
    encode: (event) =>
      encoder.encode(event).map((item): SseItem => {
        const json = spliced?.(item);
        return json === undefined ? { event: item.type, data: item } : { event: item.type, data: item, json };
      }),
  };
}
