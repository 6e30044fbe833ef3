/**
 * The session's webhook deliveries (docs/background.md): each turn's end, kept with its attempts
 * until it is delivered or given up. Pending deliveries are the outbox the alarm sends from, so they
 * survive eviction and restarts; of the settled ones the last `KEPT` stay, for `GET .../deliveries`.
 */
import type { SessionMeta } from './meta';

/** Settled deliveries kept for the deliveries route. */
const KEPT = 50;

export type DeliveryRow = { seq: number; webhookId: string; type: string; turnId: string; body: string; attempts: number };
export type Attempt = { at: string; status?: number; error?: string };
export type DeliveryView = { webhookId: string; type: string; turnId: string; state: string; createdAt: string; attempts: Attempt[] };

type Stored = { seq: number; webhook_id: string; type: string; turn_id: string; body: string; state: string; attempts: number; created_at: number };

export class WebhookDeliveries {
  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly meta: SessionMeta,
  ) {}

  private get sql(): SqlStorage {
    return this.storage.sql;
  }

  add(webhookId: string, type: string, turnId: string, body: string, now: number): void {
    this.meta.ensure('webhook_deliveries');
    this.sql.exec(
      `INSERT INTO webhook_deliveries (webhook_id, type, turn_id, body, state, next_at, created_at) VALUES (?, ?, ?, ?, 'pending', ?, ?)`,
      webhookId,
      type,
      turnId,
      body,
      now,
      now,
    );
  }

  /** Pending deliveries due by `now`, oldest first. */
  due(now: number, limit: number): DeliveryRow[] {
    if (!this.meta.has('webhook_deliveries')) return [];
    return this.sql
      .exec<Stored>(`SELECT seq, webhook_id, type, turn_id, body, state, attempts, created_at FROM webhook_deliveries WHERE state = 'pending' AND next_at <= ? ORDER BY seq LIMIT ?`, now, limit)
      .toArray()
      .map((row) => ({ seq: row.seq, webhookId: row.webhook_id, type: row.type, turnId: row.turn_id, body: row.body, attempts: row.attempts }));
  }

  /** When the next pending delivery is due, if any. */
  nextDue(): number | undefined {
    if (!this.meta.has('webhook_deliveries')) return undefined;
    return this.sql.exec<{ at: number | null }>(`SELECT MIN(next_at) AS at FROM webhook_deliveries WHERE state = 'pending'`).one().at ?? undefined;
  }

  /** One attempt: `retryAt` the time of the next, or `settled` its end (`delivered` or `failed`). */
  attempted(seq: number, attempt: { at: number; status?: number; error?: string }, next: { retryAt: number } | { settled: 'delivered' | 'failed' }): void {
    this.sql.exec(`INSERT INTO webhook_attempts (delivery_seq, at, status, error) VALUES (?, ?, ?, ?)`, seq, attempt.at, attempt.status ?? null, attempt.error ?? null);
    if ('retryAt' in next) {
      this.sql.exec(`UPDATE webhook_deliveries SET attempts = attempts + 1, next_at = ? WHERE seq = ?`, next.retryAt, seq);
      return;
    }
    this.sql.exec(`UPDATE webhook_deliveries SET attempts = attempts + 1, next_at = NULL, state = ? WHERE seq = ?`, next.settled, seq);
    this.prune();
  }

  /** The last `KEPT` deliveries, newest first, with every attempt. */
  list(): DeliveryView[] {
    if (!this.meta.has('webhook_deliveries')) return [];
    const rows = this.sql.exec<Stored>(`SELECT seq, webhook_id, type, turn_id, body, state, attempts, created_at FROM webhook_deliveries ORDER BY seq DESC LIMIT ?`, KEPT).toArray();
    return rows.map((row) => ({
      webhookId: row.webhook_id,
      type: row.type,
      turnId: row.turn_id,
      state: row.state,
      createdAt: new Date(row.created_at).toISOString(),
      attempts: this.sql
        .exec<{ at: number; status: number | null; error: string | null }>(`SELECT at, status, error FROM webhook_attempts WHERE delivery_seq = ? ORDER BY at`, row.seq)
        .toArray()
        .map((attempt) => ({ at: new Date(attempt.at).toISOString(), ...(attempt.status !== null ? { status: attempt.status } : {}), ...(attempt.error !== null ? { error: attempt.error } : {}) })),
    }));
  }

  private prune(): void {
    const oldest = this.sql.exec<{ seq: number }>(`SELECT seq FROM webhook_deliveries WHERE state != 'pending' ORDER BY seq DESC LIMIT 1 OFFSET ?`, KEPT).toArray()[0];
    if (!oldest) return;
    this.sql.exec(`DELETE FROM webhook_attempts WHERE delivery_seq IN (SELECT seq FROM webhook_deliveries WHERE seq <= ? AND state != 'pending')`, oldest.seq);
    this.sql.exec(`DELETE FROM webhook_deliveries WHERE seq <= ? AND state != 'pending'`, oldest.seq);
  }
}
