/**
 * The plain values a turn's request and routes are checked against: the words of its modes, and the
 * patterns of its ids and of an Idempotency-Key. The schemas of `turn-request.ts` and `turn-routes.ts`
 * are made of these, and stay the definition. This module imports no zod, so that a Worker isolate
 * whose first request is a plain turn checks it without loading zod at all (bench/PROFILE.md, "A
 * Worker's turn without zod").
 */

/** The modes that stream; `pi`: the pi agent's events (docs/pi-and-agui.md) over SSE. */
export const SSE_MODES = ['delta', 'message', 'pi'] as const;
/** Those, and `none`: the turn's answer as one JSON body. */
export const STREAM_MODES = [...SSE_MODES, 'none'] as const;

/**
 * What a turn does when another runs on the session (docs/turns-api.md "A second message while a turn
 * runs"): refuse (409), wait in the queue (202), cancel the running turn and run now, or hand its
 * user messages to the running turn.
 */
export const IF_BUSY_MODES = ['reject', 'enqueue', 'interrupt', 'steer'] as const;

/** The longest model name a request may give. */
export const MODEL_NAME_MAX = 256;

export const SESSION_ID = /^[A-Za-z0-9._:-]{1,128}$/;
export const SESSION_ID_RULE = 'Session ids are 1 to 128 characters of letters, digits, ".", "_", ":" and "-".';

export const TURN_ID = /^turn_[0-9a-f]{24}$/;

/** An Idempotency-Key: 1 to 255 visible ASCII characters. */
export const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;
