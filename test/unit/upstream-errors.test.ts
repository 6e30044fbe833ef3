import { describe, expect, it } from 'vitest';
import { httpErrorPart, isRetryableStatus, parseRetryAfter } from '../../src/providers/upstream-errors';

describe('upstream errors', () => {
  it.each([
    [408, true], [409, true], [429, true], [500, true], [503, true], [400, false], [401, false], [404, false], [422, false],
  ])('HTTP %i is retryable: %s', (status, retryable) => {
    expect(isRetryableStatus(status)).toBe(retryable);
  });

  it('reads Retry-After in seconds or as a date', () => {
    const now = Date.parse('2026-11-29T12:00:00Z');
    expect(parseRetryAfter('2', now)).toBe(2000);
    expect(parseRetryAfter('0.5', now)).toBe(500);
    expect(parseRetryAfter('Sun, 29 Nov 2026 12:00:03 GMT', now)).toBe(3000);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });

  it('turns an HTTP error into a part with the status, never the upstream body', async () => {
    const part = await httpErrorPart(new Response('{"error":"secret"}', { status: 429, headers: { 'retry-after': '1' } }), 'test');
    expect(part).toEqual({ type: 'error', code: 'upstream_error', message: 'The model server answered HTTP 429.', retryable: true, retryAfterMs: 1000 });
  });

  it.each([
    [400, true], [413, true], [422, true], [401, false], [429, false], [500, false],
  ])('HTTP %i is a refusal of the request as made: %s', async (status, refused) => {
    const part = await httpErrorPart(new Response('{"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum size"}}', { status }), 'test');
    expect(part).toMatchObject({ code: 'upstream_error' });
    expect(part.refused ?? false).toBe(refused);
  });

  // Each server's words for a prompt over its window, as its users report them: every one must be
  // read as an overflow (compaction), not a refusal (a failed turn, and the same on every later one),
  // and the window it names is the session's from then on.
  it.each([
    ['OpenAI', '{"error":{"message":"This model\'s maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}', 128000],
    ['Anthropic', '{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 208000 tokens > 200000 maximum"}}', 200000],
    ['Anthropic, with max_tokens', '{"type":"error","error":{"type":"invalid_request_error","message":"input length and `max_tokens` exceed context limit: 199759 + 8192 > 200000, decrease input length or `max_tokens` and try again"}}', 200000],
    ['llama.cpp', '{"error":{"code":400,"message":"request (4390 tokens) exceeds the available context size (4096 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":4390,"n_ctx":4096}}', 4096],
    ['xAI', '{"code":"Client specified an invalid argument","error":"This model\'s maximum prompt length is 131072 but the request contains 136973 tokens."}', 131072],
    ['Gemini', '[{"error":{"code":400,"message":"The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}]', 1048576],
  ])('reads %s’s prompt over the window as a context overflow, with the window it names', async (_server, body, window) => {
    const part = await httpErrorPart(new Response(body, { status: 400 }), 'test');
    expect(part).toMatchObject({ code: 'context_overflow', window });
  });

  it('reads a 500 that says the context size was exceeded (llama.cpp’s forks) as a context overflow, which another try would meet again', async () => {
    const part = await httpErrorPart(new Response('{"error":{"code":500,"message":"Context size has been exceeded.","type":"server_error"}}', { status: 500 }), 'test');
    expect(part).toEqual({ type: 'error', code: 'context_overflow', message: 'The prompt is longer than the model’s context window.' });
  });

  it('reads a 413 that says the prompt is too long as a context overflow, not a refusal', async () => {
    const part = await httpErrorPart(new Response('{"error":{"message":"Request size exceeds model context window"}}', { status: 413 }), 'test');
    expect(part).toEqual({ type: 'error', code: 'context_overflow', message: 'The prompt is longer than the model’s context window.' });
  });
});
