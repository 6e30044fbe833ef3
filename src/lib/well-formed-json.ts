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

/**
 * The well-formed JSON of objects never changed once made, each written once for its life. A
 * session's history goes with every model call, and all but its last messages were written the same
 * way for the call before (bench/PROFILE.md, "The history written once").
 */
const written = new WeakMap<object, string>();

/** An item's `wellFormedJson`; an object's written at its first call and kept with it, so it must never change once made. */
export function itemJsonOnce(item: unknown): string {
  if (typeof item !== 'object' || item === null) return wellFormedJson([item]).slice(1, -1);
  let json = written.get(item);
  if (json === undefined) {
    json = wellFormedJson(item);
    written.set(item, json);
  }
  return json;
}

/** An array's `wellFormedJson`, each item written by `write` (by default `itemJsonOnce`). */
export function arrayJsonOnce<T>(items: readonly T[], write: (item: T) => string = itemJsonOnce): string {
  return `[${items.map((item) => write(item)).join(',')}]`;
}

/**
 * `wellFormedJson(body)` with the array `body[key]` written by `arrayJsonOnce` (each item by
 * `write`), and that key first: the same JSON but for the order of keys.
 */
export function wellFormedJsonWithItems<T>(body: Record<string, unknown>, key: string, write?: (item: T) => string): string {
  const { [key]: items, ...rest } = body;
  if (!Array.isArray(items)) return wellFormedJson(body);
  const others = wellFormedJson(rest);
  return `{${JSON.stringify(key)}:${arrayJsonOnce(items as T[], write)}${others === '{}' ? '}' : `,${others.slice(1)}`}`;
}

/** A search for `\ud` first: about 0.2 ms a megabyte, where the expression takes 0.7 (Node, this machine). */
function mend(json: string): string {
  return json.includes('\\ud') ? json.replace(LONE_SURROGATE, '$1\\ufffd') : json;
}
