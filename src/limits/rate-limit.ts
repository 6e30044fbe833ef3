/**
 * The per-user limit of POST requests, socket upgrades and socket frames (`RATE_LIMIT_PER_MINUTE`;
 * `0` turns it off), kept by the user's own rate-limiter Durable Object.
 */
import { readConfig } from '../config';
import type { Env } from '../env';
import { ApiError } from '../lib/errors';

/** One request of the user's against the limit; throws `429 rate_limited` when it is spent. */
export async function takeRateLimit(env: Env, userId: string): Promise<void> {
  const { rateLimitPerMinute } = readConfig(env);
  if (rateLimitPerMinute === 0) return;
  const result = await env.RATE_LIMITER.getByName(userId).take(rateLimitPerMinute);
  if (result.ok) return;
  throw new ApiError(429, 'rate_limited', `Too many requests: at most ${rateLimitPerMinute} a minute. Retry after ${result.retryAfterSeconds} s.`, {
    headers: { 'retry-after': String(result.retryAfterSeconds) },
    details: { retryAfterSeconds: result.retryAfterSeconds },
  });
}
