/**
 * JSON for a model provider's request, with every lone UTF-16 surrogate replaced by U+FFFD.
 *
 * JavaScript strings may hold half of a surrogate pair: a client's JSON can send one (`"\ud800"`), a
 * model's tool arguments can, and so can a tool's output. `JSON.stringify` writes it as an escape,
 * which strict parsers refuse: Anthropic's API answers the whole request `400 invalid_request_error`
 * ("no low surrogate in string"). The history is sent again on every call, so one such character,
 * once stored, would fail every later turn of its session. The history keeps what came; only what
 * leaves for a provider is mended, at this one place per provider (docs/decisions.md, 36).
 */

/**
 * An escape of a surrogate that is not itself escaped (an even run of backslashes before it, kept in
 * the first group). Since ES2019 `JSON.stringify` writes a paired surrogate as the character itself
 * and escapes only a lone one, so this matches exactly the lone surrogates of its output, in keys as
 * in values.
 */
const LONE_SURROGATE = /(?<!\\)((?:\\\\)*)\\ud[89a-f][0-9a-f]{2}/g;

/** `JSON.stringify(value)`, lone surrogates replaced; one search of its output more whenever there is none. */
export function wellFormedJson(value: unknown): string {
  return mend(JSON.stringify(value));
}

/** The value itself when it holds no lone surrogate, else a copy with each replaced (for a binding that serialises it itself). */
export function wellFormed<T>(value: T): T {
  const json = JSON.stringify(value);
  const mended = mend(json);
  return mended === json ? value : (JSON.parse(mended) as T);
}

/** A search for `\ud` first: about 0.2 ms a megabyte, where the expression takes 0.7 (Node, this machine). */
function mend(json: string): string {
  return json.includes('\\ud') ? json.replace(LONE_SURROGATE, '$1\\ufffd') : json;
}
