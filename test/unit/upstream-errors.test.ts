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

  it('reads a 413 that says the prompt is too long as a context overflow, not a refusal', async () => {
    const part = await httpErrorPart(new Response('{"error":{"message":"Request size exceeds model context window"}}', { status: 413 }), 'test');
    expect(part).toEqual({ type: 'error', code: 'context_overflow', message: 'The prompt is longer than the model’s context window.' });
  });
});
