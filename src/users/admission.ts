/**
 * Whether a request of a user's may go on: the per-user rate limit of POST requests, socket upgrades
 * and socket frames (`RATE_LIMIT_PER_MINUTE`; 0 turns it off) and, for a request that calls a model,
 * the daily quotas (docs/users.md). Both are answered by the user's object in one round trip, the one
 * the rate limit always took; with neither configured, no round trip at all.
 */
import { loadConfig } from '../load-config';
import type { Env } from '../env';
import { ApiError } from '../lib/errors';
import { newId } from '../lib/ids';
import type { Usage } from '../providers/vocabulary';
import { userObject, type Owner } from './owner';
import { costOf } from './prices';
import type { Report } from './reports';
import { hasQuota, quotaError, type DayTotals } from './quota';

/** Takes one request of the owner's against the limits; throws `429 rate_limited` or `429 quota_exceeded`. */
export async function admit(env: Env, owner: Owner, { callsModel }: { callsModel: boolean }): Promise<DayTotals | undefined> {
  const config = await loadConfig(env);
  const rateLimitPerMinute = config.rateLimitPerMinute;
  const quota = callsModel && hasQuota(config.users);
  if (rateLimitPerMinute === 0 && !quota) return undefined;
  const admission = await userObject(env, owner).admit({ rateLimitPerMinute, quota });
  if (admission.ok) return admission.today;
  if ('quota' in admission) throw quotaError(admission.quota);
  const { retryAfterSeconds } = admission.rate;
  throw new ApiError(429, 'rate_limited', `Too many requests: at most ${rateLimitPerMinute} a minute. Retry after ${retryAfterSeconds} s.`, {
    headers: { 'retry-after': String(retryAfterSeconds) },
    details: { retryAfterSeconds },
  });
}

/** Tries of a report sent from the Worker, and the wait before the first retry (doubled after each). */
const DIRECT_TRIES = 4;
const DIRECT_FIRST_RETRY_MS = 250;

/**
 * The usage of a model call made outside any session (pi's `/api/stream`): with no session, no
 * outbox, so it is sent at once and retried a few times while the request's `waitUntil` lasts.
 */
export async function reportCall(env: Env, owner: Owner, model: string, usage: Usage): Promise<void> {
  const costUsd = costOf((await loadConfig(env)).users.prices, model, usage);
  const report: Report = { kind: 'usage', id: newId('use'), at: Date.now(), model, usage, costUsd };
  for (let attempt = 1; ; attempt++) {
    try {
      await userObject(env, owner).report([report]);
      return;
    } catch (error) {
      if (attempt >= DIRECT_TRIES) return console.error('usage report lost', owner.userId, model, error);
      await new Promise((resolve) => setTimeout(resolve, DIRECT_FIRST_RETRY_MS * 2 ** (attempt - 1)));
    }
  }
}
