/**
 * When a failed model call is sent again: only if nothing of it reached the client, only for faults
 * that may pass (the provider marks them `retryable`), at most `maxRetries` times, after an
 * exponential, jittered delay, or after the server's own `Retry-After` when it gives one (unless that
 * is longer than we are willing to keep a client waiting).
 */
export type RetryPolicy = {
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  maxRetryAfterMs: number;
  random: () => number;
};

export const DEFAULT_RETRY_POLICY: Omit<RetryPolicy, 'maxRetries'> = {
  baseDelayMs: 250,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 20_000,
  random: Math.random,
};

/** The delay before retry number `attempt + 1`, or undefined when the call should not be retried. */
export function retryDelay(policy: RetryPolicy, attempt: number, retryAfterMs: number | undefined): number | undefined {
  if (attempt >= policy.maxRetries) return undefined;
  if (retryAfterMs !== undefined) return retryAfterMs <= policy.maxRetryAfterMs ? retryAfterMs : undefined;
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.round(ceiling * (0.5 + policy.random()));
}
