/** itty middleware: one request of the user's against the rate limit (`src/limits/rate-limit.ts`). */
import type { Env } from '../env';
import { takeRateLimit } from '../limits/rate-limit';
import type { AuthedRequest } from './auth';

export async function withRateLimit(request: AuthedRequest, env: Env): Promise<void> {
  await takeRateLimit(env, request.userId);
}
