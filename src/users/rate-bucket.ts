/**
 * A token bucket: `capacity` requests a minute, with a burst of the same size (`RATE_LIMIT_PER_MINUTE`).
 * It lives in the user's object, in memory only: an object is evicted only after more than a minute
 * without requests, by which time its bucket would be full.
 */
export type TakeResult = { ok: true; remaining: number } | { ok: false; retryAfterSeconds: number };

export class RateBucket {
  private tokens = Number.NaN;
  private updatedAt = 0;

  take(capacity: number, now: number): TakeResult {
    const perMs = capacity / 60_000;
    if (Number.isNaN(this.tokens)) this.tokens = capacity;
    this.tokens = Math.min(capacity, this.tokens + (now - this.updatedAt) * perMs);
    this.updatedAt = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return { ok: true, remaining: Math.floor(this.tokens) };
    }
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - this.tokens) / perMs / 1000)) };
  }
}
