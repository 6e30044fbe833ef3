/**
 * A user's usage, per UTC day and model: numbers only, never content, so they outlive an erasure.
 * Each model call's report is applied once (its id is remembered for `APPLIED_KEEP_MS`, far longer
 * than an outbox retries), so a retried report never counts twice.
 */
import type { Spend, UsageDay } from '../../api/user-responses';
import { roundUsd, utcDay, type DayTotals } from '../quota';
import type { Report } from '../reports';

type UsageReport = Extract<Report, { kind: 'usage' }>;

/** How long an applied report's id is remembered: its outbox gives up long before. */
const APPLIED_KEEP_MS = 30 * 86_400_000;

export const USAGE_LEDGER_SCHEMA = [
  `CREATE TABLE IF NOT EXISTS usage (
     date TEXT NOT NULL,
     model TEXT NOT NULL,
     calls INTEGER NOT NULL,
     input_tokens INTEGER NOT NULL,
     output_tokens INTEGER NOT NULL,
     cached_input_tokens INTEGER NOT NULL,
     cache_write_input_tokens INTEGER NOT NULL,
     reasoning_tokens INTEGER NOT NULL,
     cost_usd REAL NOT NULL,
     priced_calls INTEGER NOT NULL,
     PRIMARY KEY (date, model)
   )`,
  // Without a rowid, the id is the table's own key: a report applied writes two rows (it and its
  // time's index), not three (decision 42). A user's object made before keeps the table it made,
  // with a rowid; the statements read both alike.
  `CREATE TABLE IF NOT EXISTS applied (report_id TEXT PRIMARY KEY, at INTEGER NOT NULL) WITHOUT ROWID`,
  `CREATE INDEX IF NOT EXISTS applied_by_time ON applied (at)`,
];

type UsageRow = {
  date: string;
  model: string;
  calls: number;
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
  cache_write_input_tokens: number;
  reasoning_tokens: number;
  cost_usd: number;
  priced_calls: number;
};

export class UsageLedger {
  constructor(private readonly sql: SqlStorage) {}

  /** Counts one model call, unless its report was counted before. */
  add(report: UsageReport): void {
    // One statement both looks and remembers: an id applied before is not written again.
    const remembered = this.sql.exec('INSERT INTO applied (report_id, at) VALUES (?, ?) ON CONFLICT (report_id) DO NOTHING', report.id, Date.now());
    remembered.toArray();
    if (remembered.rowsWritten === 0) return;
    const { usage } = report;
    this.sql.exec(
      `INSERT INTO usage VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (date, model) DO UPDATE SET calls = calls + 1,
         input_tokens = input_tokens + excluded.input_tokens, output_tokens = output_tokens + excluded.output_tokens,
         cached_input_tokens = cached_input_tokens + excluded.cached_input_tokens,
         cache_write_input_tokens = cache_write_input_tokens + excluded.cache_write_input_tokens,
         reasoning_tokens = reasoning_tokens + excluded.reasoning_tokens,
         cost_usd = cost_usd + excluded.cost_usd, priced_calls = priced_calls + excluded.priced_calls`,
      utcDay(report.at),
      report.model,
      usage.inputTokens,
      usage.outputTokens,
      usage.cachedInputTokens,
      usage.cacheWriteInputTokens,
      usage.reasoningTokens,
      report.costUsd ?? 0,
      report.costUsd === null ? 0 : 1,
    );
  }

  /** Forgets the ids of reports applied long ago (their retries ended long before). */
  prune(now: number): void {
    this.sql.exec('DELETE FROM applied WHERE at < ?', now - APPLIED_KEEP_MS);
  }

  /** Usage per day and model for `from`..`to` (UTC days, both inclusive), oldest first. */
  days(from: string, to: string): UsageDay[] {
    const rows = this.sql.exec<UsageRow>('SELECT * FROM usage WHERE date >= ? AND date <= ? ORDER BY date, model', from, to).toArray();
    return rows.map((row) => ({ date: row.date, model: row.model, ...spendOf(row) }));
  }

  /** One day's spend, for the quotas. */
  totals(date: string): DayTotals {
    const spend = total(this.days(date, date));
    return { date, tokens: spend.inputTokens + spend.outputTokens, costUsd: spend.costUsd ?? 0 };
  }
}

function spendOf(row: UsageRow): Spend {
  return {
    calls: row.calls,
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
    cachedInputTokens: row.cached_input_tokens,
    cacheWriteInputTokens: row.cache_write_input_tokens,
    reasoningTokens: row.reasoning_tokens,
    costUsd: row.priced_calls > 0 ? roundUsd(row.cost_usd) : null,
  };
}

/** The sum of several days' spend; its cost is null only when no call had a price. */
export function total(days: Spend[]): Spend {
  const sum: Spend = { calls: 0, inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, cacheWriteInputTokens: 0, reasoningTokens: 0, costUsd: null };
  for (const day of days) {
    for (const key of COUNTED) sum[key] += day[key];
    if (day.costUsd !== null) sum.costUsd = roundUsd((sum.costUsd ?? 0) + day.costUsd);
  }
  return sum;
}

const COUNTED = ['calls', 'inputTokens', 'outputTokens', 'cachedInputTokens', 'cacheWriteInputTokens', 'reasoningTokens'] as const;
