/**
 * The daily quotas (docs/users.md): a user at or over `USER_DAILY_TOKENS` (input + output tokens) or
 * `USER_DAILY_COST_USD` on a UTC day calls no model until the next UTC midnight. Pure: the totals
 * come from the user's object, or from what a session knows of them.
 */
import { ApiError } from '../lib/errors';
import type { UserSettings } from './prices';

/** A user's spend on one UTC day (`YYYY-MM-DD`). */
export type DayTotals = { date: string; tokens: number; costUsd: number };

export type QuotaRefusal = { unit: 'tokens' | 'usd'; limit: number; used: number; resetAt: string; retryAfterSeconds: number };

const DAY_MS = 86_400_000;

/** The UTC day of an instant, `YYYY-MM-DD`. */
export function utcDay(at: number): string {
  return new Date(at).toISOString().slice(0, 10);
}

/** Whether the deployment has any daily limit (without one, nobody needs to know the totals first). */
export function hasQuota(settings: UserSettings): boolean {
  return settings.dailyTokens > 0 || settings.dailyCostUsd > 0;
}

/** Why a user with `totals` today may call no model now, or undefined when they may. */
export function overQuota(settings: UserSettings, totals: DayTotals | undefined, now: number): QuotaRefusal | undefined {
  const today = utcDay(now);
  const spent = totals?.date === today ? totals : { tokens: 0, costUsd: 0 };
  const resetMs = Math.floor(now / DAY_MS) * DAY_MS + DAY_MS;
  const reset = { resetAt: new Date(resetMs).toISOString(), retryAfterSeconds: Math.max(1, Math.ceil((resetMs - now) / 1000)) };
  if (settings.dailyTokens > 0 && spent.tokens >= settings.dailyTokens) return { unit: 'tokens', limit: settings.dailyTokens, used: spent.tokens, ...reset };
  if (settings.dailyCostUsd > 0 && spent.costUsd >= settings.dailyCostUsd) return { unit: 'usd', limit: settings.dailyCostUsd, used: roundUsd(spent.costUsd), ...reset };
  return undefined;
}

export function quotaMessage(refusal: QuotaRefusal): string {
  const what = refusal.unit === 'tokens' ? `${refusal.used} of its ${refusal.limit} tokens` : `$${refusal.used} of its $${refusal.limit}`;
  return `This user has spent ${what} for today (UTC); model calls resume at ${refusal.resetAt}.`;
}

/** The HTTP doors' answer: `429 quota_exceeded` with `Retry-After` (seconds to the next UTC midnight). */
export function quotaError(refusal: QuotaRefusal): ApiError {
  return new ApiError(429, 'quota_exceeded', quotaMessage(refusal), {
    headers: { 'retry-after': String(refusal.retryAfterSeconds) },
    details: { unit: refusal.unit, limit: refusal.limit, used: refusal.used, resetAt: refusal.resetAt },
  });
}

/** Costs are summed in floating point; a micro-dollar is as fine as any price list goes. */
export function roundUsd(value: number): number {
  return Math.round(value * 1_000_000) / 1_000_000;
}
