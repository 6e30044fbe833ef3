/**
 * The one turn request that is nearly every turn request, `{messages: [{role: 'user', content:
 * '…'}], stream?, model?, ifBusy?}`, recognised by hand. zod (jitless in workerd) took 0.5–1 ms of a
 * turn's first text event to check it in the Worker (bench/PROFILE.md, "The turn request's
 * check"). Anything else, or anything more, goes to `turnRequestSchema`, which stays the definition:
 * what this accepts is a subset of what the schema accepts, with the same result (a property test
 * holds it to that).
 */
import { isRecord } from '../lib/is-record';
import { LIMITS } from './limits';
import { IF_BUSY_MODES, MODEL_NAME_MAX, STREAM_MODES } from './turn-fields';
import type { TurnRequest } from './turn-request';

const REQUEST_KEYS = new Set(['messages', 'stream', 'model', 'ifBusy']);
const STREAM: ReadonlySet<unknown> = new Set(STREAM_MODES);
const IF_BUSY: ReadonlySet<unknown> = new Set(IF_BUSY_MODES);

/** The request as the schema would parse it, if it is a plain one; undefined for any other. */
export function plainTurnRequest(json: unknown): TurnRequest | undefined {
  if (!isRecord(json)) return undefined;
  for (const key in json) if (!REQUEST_KEYS.has(key)) return undefined;
  const { messages, stream, model, ifBusy } = json;
  if (!Array.isArray(messages) || messages.length === 0 || messages.length > LIMITS.messagesPerRequest) return undefined;
  const parsed: TurnRequest['messages'] = [];
  for (const message of messages) {
    if (!isRecord(message) || message.role !== 'user' || typeof message.content !== 'string' || message.content.length > LIMITS.textChars) return undefined;
    for (const key in message) if (key !== 'role' && key !== 'content') return undefined;
    parsed.push({ role: 'user', content: message.content });
  }
  if (stream !== undefined && !STREAM.has(stream)) return undefined;
  if (model !== undefined && (typeof model !== 'string' || model.length === 0 || model.length > MODEL_NAME_MAX)) return undefined;
  if (ifBusy !== undefined && !IF_BUSY.has(ifBusy)) return undefined;
  // What the schema gives: its keys in its order, the defaults filled in.
  return {
    messages: parsed,
    stream: (stream ?? 'none') as TurnRequest['stream'],
    ...(model !== undefined ? { model } : {}),
    ifBusy: (ifBusy ?? 'reject') as TurnRequest['ifBusy'],
  };
}
