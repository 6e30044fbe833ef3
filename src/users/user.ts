/**
 * One user, as their Durable Object's shell (`user-object.ts`) loads it (docs/users.md): the list of their sessions, their usage per day and
 * model, and their rate limit's bucket. Sessions report to it (from their outboxes, so nothing is
 * lost when it is unreachable); the Worker asks it whether a request may go on, in the one round trip
 * the rate limit already took. It holds numbers and session entries, never a message.
 */
import type { Spend, UsageDay } from '../api/user-responses';
import { readConfig } from '../config';
import type { Env } from '../env';
import { hasQuota, overQuota, utcDay, type DayTotals, type QuotaRefusal } from './quota';
import { RateBucket } from './rate-bucket';
import { reportsSchema } from './reports';
import { SESSION_INDEX_SCHEMA, SessionIndex, type SessionPage } from './store/session-index';
import { total, USAGE_LEDGER_SCHEMA, UsageLedger } from './store/usage-ledger';

/** What a report is answered: the user's totals today, and whether the reporting session must erase itself. */
export type ReportAnswer = { today: DayTotals; erase?: true };

/** What `admit` answers: go on (with today's totals when a quota needs them), or why not. */
export type Admission = { ok: true; today?: DayTotals } | { ok: false; rate: { retryAfterSeconds: number } } | { ok: false; quota: QuotaRefusal };

export class User {
  private readonly index: SessionIndex;
  private readonly ledger: UsageLedger;
  private readonly bucket = new RateBucket();

  constructor(
    private readonly ctx: DurableObjectState,
    private readonly env: Env,
  ) {
    const { sql } = ctx.storage;
    ctx.storage.transactionSync(() => {
      for (const statement of [...SESSION_INDEX_SCHEMA, ...USAGE_LEDGER_SCHEMA]) sql.exec(statement);
    });
    this.index = new SessionIndex(sql);
    this.ledger = new UsageLedger(sql);
  }

  /**
   * One request of the user's: a token of the rate limit (`rateLimitPerMinute`, 0: none) and, for a
   * request that calls a model (`quota`), the daily limits. Nothing is written.
   */
  async admit(args: { rateLimitPerMinute: number; quota: boolean }): Promise<Admission> {
    const now = Date.now();
    if (args.rateLimitPerMinute > 0) {
      const taken = this.bucket.take(args.rateLimitPerMinute, now);
      if (!taken.ok) return { ok: false, rate: { retryAfterSeconds: taken.retryAfterSeconds } };
    }
    const settings = readConfig(this.env).users;
    if (!args.quota || !hasQuota(settings)) return { ok: true };
    const today = this.ledger.totals(utcDay(now));
    const refusal = overQuota(settings, today, now);
    return refusal ? { ok: false, quota: refusal } : { ok: true, today };
  }

  /**
   * Reports from a session's outbox, applied in one transaction. Answers today's totals, and `erase`
   * when the session predates an erasure of its user that did not find it: it must erase itself.
   */
  async report(reports: unknown): Promise<ReportAnswer> {
    const parsed = reportsSchema().parse(reports);
    let erase = false;
    this.ctx.storage.transactionSync(() => {
      for (const report of parsed) {
        if (report.kind === 'usage') this.ledger.add(report);
        else if (report.kind === 'deleted') this.index.remove(report.sessionId, report.generation);
        else erase = (report.kind === 'session' ? this.index.put(report) : this.index.start(report)) === 'erased' || erase;
      }
    });
    return { today: await this.today(), ...(erase ? { erase: true as const } : {}) };
  }

  async today(): Promise<DayTotals> {
    return this.ledger.totals(utcDay(Date.now()));
  }

  async sessions(limit: number, cursor?: string): Promise<SessionPage> {
    return this.index.page(limit, cursor);
  }

  async usage(from: string, to: string): Promise<{ days: UsageDay[]; total: Spend }> {
    this.ledger.prune(Date.now());
    const days = this.ledger.days(from, to);
    return { days, total: total(days) };
  }

  async summary(): Promise<{ sessionCount: number; today: { date: string; usage: Spend } }> {
    const date = utcDay(Date.now());
    return { sessionCount: this.index.count(), today: { date, usage: total(this.ledger.days(date, date)) } };
  }

  /** The user is erased: every listed session goes from the list (their objects were erased first). */
  async forgetSessions(): Promise<{ forgotten: number }> {
    return { forgotten: this.ctx.storage.transactionSync(() => this.index.removeAll(Date.now())) };
  }
}
