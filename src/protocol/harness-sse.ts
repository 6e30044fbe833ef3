/**
 * The Harness door's events as SSE items (the JSON array's framing takes them alike). Text and
 * thinking come a delta per token, and `JSON.stringify` of each delta's whole event was most of what
 * the door spent on it (bench/PROFILE.md, "The Harness deltas' JSON"). Their fields are known, in
 * the order `harness-encoder.ts` writes them (`type`, `id`, `createdAt`, then `replyId`, `blockId`,
 * `delta`), and the ids repeat from delta to delta: so their JSON is spliced here from the delta's
 * and the ids' own, each id's made once, giving the same text `JSON.stringify` would. `id` and
 * `createdAt` need no escaping (hex digits; an ISO time). Anything else, a `source` among them
 * (a sub-agent's), goes through `JSON.stringify`.
 */
import { typedSse, type SseItem, type WireEncoder } from './encoder';
import type { HarnessEvent } from './harness-events';

export function harnessSse(encoder: WireEncoder<HarnessEvent>): WireEncoder<SseItem> {
  const quoted = { replyId: '', replyJson: '""', blockId: '', blockJson: '""' };
  return typedSse(encoder, (item) => {
    if ((item.type !== 'TEXT_BLOCK_DELTA' && item.type !== 'THINKING_BLOCK_DELTA') || item.source !== undefined || item.metadata !== undefined) return undefined;
    if (item.replyId !== quoted.replyId) quoted.replyJson = JSON.stringify((quoted.replyId = item.replyId));
    if (item.blockId !== quoted.blockId) quoted.blockJson = JSON.stringify((quoted.blockId = item.blockId));
    return `{"type":"${item.type}","id":"${item.id}","createdAt":"${item.createdAt}","replyId":${quoted.replyJson},"blockId":${quoted.blockJson},"delta":${JSON.stringify(item.delta)}}`;
  });
}
