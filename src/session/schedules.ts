/**
 * A session's schedules (docs/background.md): turns that run at a time or on a cron, with no client.
 * The session's alarm fires them within seconds of their time; each firing is an enqueued turn (it
 * waits for a running one), stored and sent to the webhook like any other. At most `MAX_SCHEDULES`.
 */
import { MAX_SCHEDULES, nextRunAt, scheduleRequestSchema, type ScheduleRequest, type ScheduleView } from '../api/schedule-requests';
import { ApiError } from '../lib/errors';
import { newId } from '../lib/ids';
import { madeOnce } from '../lib/made-once';
import * as z from '../lib/zod';
import type { SessionStores } from './store/stores';
import { statusOf } from './store/turns';
import type { TurnQueue } from './turn-queue';

/** What is stored of a schedule: its request, with the model the Worker checked (made when first read, as the request's is). */
const specSchema = madeOnce(() => z.safeExtend(scheduleRequestSchema(), { model: z.string() }));
type Spec = ScheduleRequest & { model: string };

type Row = { id: string; spec: string; next_run_at: number | null; last_turn_id: string | null; created_at: number };

export type SchedulesHost = {
  storage: DurableObjectStorage;
  stores: SessionStores;
  queue: Pick<TurnQueue, 'enqueue' | 'drain'>;
  /** Asks the alarm to fire by `at`. */
  wake(at: number): void;
};

export class Schedules {
  constructor(private readonly host: SchedulesHost) {}

  private get sql(): SqlStorage {
    return this.host.storage.sql;
  }

  /** A new schedule (the session is made if it is new); `400` for a time in the past, `409` past the bound. */
  create(sessionId: string, spec: Spec, now = Date.now()): { scheduleId: string; nextRunAt: string } {
    const next = nextRunAt(spec, now);
    if (next === null) throw new ApiError(400, 'invalid_schedule', `"at" is in the past (${spec.at}); a schedule runs at a time to come.`);
    const { meta } = this.host.stores;
    if (meta.has('schedules') && this.count() >= MAX_SCHEDULES) {
      throw new ApiError(409, 'too_many_schedules', `This session has its ${MAX_SCHEDULES} schedules already; delete one first.`, { details: { maxSchedules: MAX_SCHEDULES } });
    }
    meta.ensureCreated(sessionId);
    meta.ensure('schedules');
    const scheduleId = newId('sch');
    this.sql.exec('INSERT INTO schedules (id, spec, next_run_at, created_at) VALUES (?, ?, ?, ?)', scheduleId, JSON.stringify(spec), next, now);
    this.host.wake(next);
    return { scheduleId, nextRunAt: new Date(next).toISOString() };
  }

  list(): ScheduleView[] {
    if (!this.host.stores.meta.has('schedules')) return [];
    return this.rows('SELECT id, spec, next_run_at, last_turn_id, created_at FROM schedules ORDER BY created_at, id').map((row) => this.view(row));
  }

  remove(scheduleId: string): void {
    const gone = this.host.stores.meta.has('schedules') && this.sql.exec('DELETE FROM schedules WHERE id = ? RETURNING id', scheduleId).toArray().length > 0;
    if (!gone) throw new ApiError(404, 'schedule_not_found', `This session has no schedule ${scheduleId}.`);
  }

  /** The alarm's part: every schedule due by `now` enqueues its turn; each then waits for its next time. */
  fireDue(now = Date.now()): void {
    if (!this.host.stores.meta.has('schedules')) return;
    const sessionId = this.host.stores.meta.sessionId() ?? '';
    for (const row of this.rows('SELECT id, spec, next_run_at, last_turn_id, created_at FROM schedules WHERE next_run_at <= ? ORDER BY next_run_at', now)) {
      const spec = specSchema().parse(JSON.parse(row.spec));
      let turnId: string | null = row.last_turn_id;
      try {
        const request = { messages: spec.messages, ...(spec.tools ? { tools: spec.tools } : {}), stream: 'none' as const, ifBusy: 'enqueue' as const };
        turnId = this.host.queue.enqueue(request, { sessionId, model: spec.model, scheduleId: row.id }).turnId;
      } catch (error) {
        // A full queue skips this run; the schedule keeps its next.
        console.warn('a schedule could not enqueue its turn', row.id, error instanceof ApiError ? error.code : error);
      }
      this.sql.exec('UPDATE schedules SET next_run_at = ?, last_turn_id = ? WHERE id = ?', nextRunAt(spec, now), turnId, row.id);
    }
    void this.host.queue.drain();
    const next = this.nextDue();
    if (next !== undefined) this.host.wake(next);
  }

  nextDue(): number | undefined {
    if (!this.host.stores.meta.has('schedules')) return undefined;
    return this.sql.exec<{ at: number | null }>('SELECT MIN(next_run_at) AS at FROM schedules').one().at ?? undefined;
  }

  private count(): number {
    return this.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM schedules').one().n;
  }

  private rows(query: string, ...bindings: unknown[]): Row[] {
    return this.sql.exec<Row>(query, ...bindings).toArray();
  }

  private view(row: Row): ScheduleView {
    const spec = specSchema().parse(JSON.parse(row.spec));
    const last = row.last_turn_id === null ? undefined : this.host.stores.turns.turn(row.last_turn_id);
    return {
      scheduleId: row.id,
      ...spec,
      createdAt: new Date(row.created_at).toISOString(),
      nextRunAt: row.next_run_at === null ? null : new Date(row.next_run_at).toISOString(),
      ...(row.last_turn_id !== null ? { lastRun: { turnId: row.last_turn_id, status: last ? statusOf(last) : 'pruned', ...(last?.stopReason ? { stopReason: last.stopReason } : {}) } } : {}),
    };
  }
}
