/** itty middleware: the per-user limit of POST requests (`RATE_LIMIT_PER_MINUTE`; `0` turns it off). */
import { readConfig } from '../config';
import type { Env } from '../env';
import { ApiError } from '../lib/errors';
import type { AuthedRequest } from './auth';

export async function withRateLimit(request: AuthedRequest, env: Env): Promise<void> {
  const { rateLimitPerMinute } = readConfig(env);
  if (rateLimitPerMinute === 0) return;
  const result = await env.RATE_LIMITER.getByName(request.userId).take(rateLimitPerMinute);
  if (result.ok) return;
  throw new ApiError(429, 'rate_limited', `Too many requests: at most ${rateLimitPerMinute} a minute. Retry after ${result.retryAfterSeconds} s.`, {
    headers: { 'retry-after': String(result.retryAfterSeconds) },
    details: { retryAfterSeconds: result.retryAfterSeconds },
  });
}
