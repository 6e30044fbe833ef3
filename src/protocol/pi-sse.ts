/**
 * pi's events as SSE items. Every `message_update` repeats the open message's header twice (in
 * `message` and in `assistantMessageEvent.partial`), and serializing it twice per delta was most of
 * the stream's CPU (bench/PROFILE.md). The header changes only when a call starts and when its usage
 * comes (a new object each time), so its JSON is made once per header and spliced into each
 * update's: the same text `JSON.stringify` would give.
 */
import { typedSse, type SseItem, type WireEncoder } from './encoder';
import type { PiAgentEvent, PiAssistantMessage, PiAssistantMessageEvent } from './pi-events';

export function piSse(encoder: WireEncoder<PiAgentEvent>): WireEncoder<SseItem> {
  let header: PiAssistantMessage | undefined;
  let headerJson = '';
  return typedSse(encoder, (item) => {
    if (item.type !== 'message_update' || item.assistantMessageEvent.partial !== item.message) return undefined;
    if (item.message !== header) {
      header = item.message;
      headerJson = JSON.stringify(header);
    }
    return `{"type":"message_update","message":${headerJson},"assistantMessageEvent":${updateJson(item.assistantMessageEvent)},"partial":${headerJson}}}`;
  });
}

/**
 * The update's own fields as JSON, without its closing brace (`partial` comes last). The deltas, one
 * per token, are `{type, contentIndex, delta}` (pi-encoder.ts writes them in that order); the rest
 * are rare and go through `JSON.stringify`.
 */
function updateJson(update: PiAssistantMessageEvent): string {
  if (update.type === 'text_delta' || update.type === 'thinking_delta' || update.type === 'toolcall_delta') {
    return `{"type":"${update.type}","contentIndex":${update.contentIndex},"delta":${JSON.stringify(update.delta)}`;
  }
  const { partial: _partial, ...rest } = update;
  // `rest` always has its `type`, so its JSON ends with the object's closing brace.
  return JSON.stringify(rest).slice(0, -1);
}
