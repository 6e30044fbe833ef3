/**
 * What a strict JSON parser (Rust's serde_json, behind Anthropic's API) refuses that `JSON.parse`
 * takes: an escape of a lone surrogate, its backslash not itself escaped (a high one without a low
 * escape after it, or a low one without a high before). Shared by the stand-in Messages API (Node)
 * and the unit test of what the providers send (workerd).
 */
export const LONE_SURROGATE_ESCAPE = /(?<!\\)(?:\\\\)*(?:\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f][0-9a-f]{2})|(?<!\\ud[89ab][0-9a-f]{2})\\ud[c-f][0-9a-f]{2})/i;
