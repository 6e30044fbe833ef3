/**
 * Tool call ids as a Chat Completions server takes them. The history keeps each id as it came, and
 * each goes under a name made from it, the same on both sides of its call (the call's `id` and the
 * result's `tool_call_id`), so a call and its result stay paired.
 *
 * OpenAI refuses an id longer than 40 characters ("string too long"). Other servers write longer
 * ones (vLLM's `chatcmpl-tool-` and a UUID's hex, 46), and so do clients (pi's ids from OpenAI's
 * Responses API, `call_…|fc_…`, 80 and more). Mistral's API takes only nine letters and digits, asked
 * for in its dialect (`dialect.ts`).
 */
import { fnv1a64 } from '../../lib/fnv1a';

/** The longest tool call id OpenAI takes. */
const MAX_TOOL_CALL_ID = 40;

/**
 * A tool call id as OpenAI takes it: as it is when short enough, else its first 23 characters and
 * a 64-bit FNV-1a hash of the whole (40 in all), so that ids alike in their first characters stay
 * apart. The same id always maps to the same name, so a call and its result stay paired.
 */
export function openaiToolCallId(id: string): string {
  if (id.length <= MAX_TOOL_CALL_ID) return id;
  const [high, low] = fnv1a64(id);
  const hex = (value: number) => value.toString(16).padStart(8, '0');
  return `${id.slice(0, MAX_TOOL_CALL_ID - 17)}_${hex(high)}${hex(low)}`;
}

const ALPHANUMERIC = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A tool call id as Mistral takes it: nine letters and digits, itself when it is such, else nine made from its hash. */
export function nineCharacterId(id: string): string {
  if (/^[A-Za-z0-9]{9}$/.test(id)) return id;
  let [high, low] = fnv1a64(id);
  let out = '';
  // 62^9 is about 2^53.6: the hash's 64 bits read in base 62, nine digits of it.
  for (let index = 0; index < 9; index++) {
    const rest = (high % 62) * 0x100000000 + low;
    out += ALPHANUMERIC[rest % 62];
    high = Math.floor(high / 62);
    low = Math.floor(rest / 62) >>> 0;
  }
  return out;
}
