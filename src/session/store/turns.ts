/**
 * The SQL of a session's turns: the turn rows (status, mode, idempotency key), their packed event
 * logs, and the pruning of what has expired. Beside `history.ts`, which holds the history.
 */
import type { SessionViewBody } from '../../api/responses';
import type { TurnStatus } from '../../api/turn-status';
import { splitForRows } from './row-chunks';
import type { SessionMeta } from './meta';

export type TurnRow = {
  turnId: string;
  status: string;
  model: string;
  mode: string;
  startedAt: number;
  endedAt: number | null;
  requestHash: string | null;
  eventsPruned: boolean;
  /** Whether the request that made it was queued (ifBusy "enqueue"): a retry with its key answers 202 again. */
  enqueued: boolean;
  stopReason: string | null;
};

type TurnRecord = {
  turn_id: string;
  status: string;
  model: string;
  mode: string;
  started_at: number;
  ended_at: number | null;
  request_hash: string | null;
  events_pruned: number;
  stop_reason: string | null;
  enqueued: number;
};

const TURN_COLUMNS = 'turn_id, status, model, mode, started_at, ended_at, request_hash, events_pruned, stop_reason, enqueued';

function toTurnRow(row: TurnRecord): TurnRow {
  return {
    turnId: row.turn_id,
    status: row.status,
    model: row.model,
    mode: row.mode,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    requestHash: row.request_hash,
    eventsPruned: row.events_pruned === 1,
    stopReason: row.stop_reason,
    enqueued: row.enqueued === 1,
  };
}

/** A session's last turn, as its view (`GET /sessions/{id}`) says it. */
export type LastTurn = NonNullable<SessionViewBody['lastTurn']>;

/**
 * A turn's state as the API says it (docs/background.md), from what its row keeps: an ended turn
 * `finished`, `cancelled` or `failed` (with an error, or cut by a restart: `interrupted`).
 */
export function statusOf(turn: Pick<TurnRow, 'status' | 'stopReason'>): TurnStatus {
  if (turn.status === 'queued' || turn.status === 'running' || turn.status === 'cancelled') return turn.status;
  return turn.status === 'finished' && turn.stopReason !== 'error' ? 'finished' : 'failed';
}

/**
 * Which turns a listing keeps: a state as the turns API names it (`statusOf`), or
 * one of the two a finished turn is to A2A: waiting for input (`tool_use`) or completed.
 */
export type TurnState = 'queued' | 'running' | 'finished' | 'cancelled' | 'failed' | 'input_required' | 'completed';

const FINISHED = `status = 'finished' AND stop_reason IS NOT 'error'`;
const STATE_SQL: Record<TurnState, string> = {
  queued: `status = 'queued'`,
  running: `status = 'running'`,
  cancelled: `status = 'cancelled'`,
  finished: FINISHED,
  failed: `status NOT IN ('queued', 'running', 'cancelled') AND NOT (${FINISHED})`,
  input_required: `status = 'finished' AND stop_reason = 'tool_use'`,
  completed: `status = 'finished' AND stop_reason NOT IN ('error', 'tool_use')`,
};

/** A page of a session's turns: newest first (by when each was asked for), after `before` (a `key` of the page before). */
export type TurnsFilter = { limit: number; before?: number; state?: TurnState; changedSince?: number };
export type ListedTurn = TurnRow & { key: number; errorCode: string | null; scheduleId: string | null };

export class TurnStore {
  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly session: SessionMeta,
    private readonly now: () => number = Date.now,
  ) {}

  private get sql(): SqlStorage {
    return this.storage.sql;
  }

  beginTurn(turnId: string, model: string, mode: string, idempotency?: { key: string; hash: string }): void {
    this.insertTurn(turnId, 'running', model, mode, idempotency);
  }

  turn(turnId: string): TurnRow | undefined {
    if (!this.session.exists()) return undefined;
    const row = this.sql.exec<TurnRecord>(`SELECT ${TURN_COLUMNS} FROM turns WHERE turn_id = ?`, turnId).toArray()[0];
    return row && toTurnRow(row);
  }

  /** A turn that waits in the queue (`QueueStore`): its row says `queued` until it starts; `scheduleId`, the schedule that made it. */
  queueTurn(turnId: string, model: string, mode: string, idempotency?: { key: string; hash: string }, scheduleId?: string): void {
    this.insertTurn(turnId, 'queued', model, mode, idempotency, scheduleId);
  }

  private insertTurn(turnId: string, status: 'running' | 'queued', model: string, mode: string, idempotency?: { key: string; hash: string }, scheduleId?: string): void {
    this.sql.exec(
      `INSERT INTO turns (turn_id, status, model, mode, started_at, idempotency_key, request_hash, enqueued, schedule_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      turnId,
      status,
      model,
      mode,
      this.now(),
      idempotency?.key ?? null,
      idempotency?.hash ?? null,
      status === 'queued' ? 1 : 0,
      scheduleId ?? null,
    );
    this.session.touch();
  }

  /** The schedule that started a turn, if one did. */
  scheduleOf(turnId: string): string | undefined {
    if (!this.session.exists()) return undefined;
    return this.sql.exec<{ schedule_id: string | null }>(`SELECT schedule_id FROM turns WHERE turn_id = ?`, turnId).toArray()[0]?.schedule_id ?? undefined;
  }

  /** A queued turn whose messages another turn took (steered in): it never was a turn of its own. */
  forget(turnId: string): void {
    this.sql.exec(`DELETE FROM turns WHERE turn_id = ? AND status = 'queued'`, turnId);
  }

  /** A queued turn starts. */
  startQueued(turnId: string, model: string): void {
    this.sql.exec(`UPDATE turns SET status = 'running', model = ?, started_at = ? WHERE turn_id = ?`, model, this.now(), turnId);
  }

  /** The turn a key started, if it started after `since` (keys live for a while, then are forgotten). */
  turnByIdempotencyKey(key: string, since: number): TurnRow | undefined {
    if (!this.session.exists()) return undefined;
    const row = this.sql
      .exec<TurnRecord>(
        `SELECT ${TURN_COLUMNS} FROM turns WHERE idempotency_key = ? AND started_at >= ? ORDER BY started_at DESC LIMIT 1`,
        key,
        since,
      )
      .toArray()[0];
    return row && toTurnRow(row);
  }

  /** One packed batch of a turn's events (JSON), split over rows if it is long. */
  appendEvents(turnId: string, firstSeq: number, json: string): void {
    this.session.transaction(() => {
      this.session.ensure('turn_events');
      for (const [part, data] of splitForRows(json).entries()) {
        this.sql.exec(`INSERT INTO turn_events (turn_id, first_seq, part, data) VALUES (?, ?, ?, ?)`, turnId, firstSeq, part, data);
      }
    });
  }

  /** The packed batches of a turn, in order, each joined back whole. */
  readEvents(turnId: string): string[] {
    const batches: string[] = [];
    if (!this.session.has('turn_events')) return batches;
    let current: { firstSeq: number; data: string } | undefined;
    for (const row of this.sql
      .exec<{ first_seq: number; data: string }>(`SELECT first_seq, data FROM turn_events WHERE turn_id = ? ORDER BY first_seq, part`, turnId)
      .toArray()) {
      if (current && current.firstSeq === row.first_seq) current.data += row.data;
      else {
        if (current) batches.push(current.data);
        current = { firstSeq: row.first_seq, data: row.data };
      }
    }
    if (current) batches.push(current.data);
    return batches;
  }

  /**
   * Forgets what has outlived its use: event logs and idempotency keys of turns that ended before
   * `before`, and the logs of all but the newest `keepTurns` turns, except those of turns started
   * with an idempotency key: a retry within the key's window replays its turn's events, so the
   * window (docs/operations.md: 24 h), not a count of turns, decides when those go. Returns when the next log
   * expires.
   */
  prune(before: number, keepTurns: number): number | undefined {
    if (!this.session.exists()) return undefined;
    this.session.transaction(() => {
      const stale = `SELECT turn_id FROM turns WHERE status NOT IN ('running', 'queued') AND events_pruned = 0 AND (ended_at < ?1 OR (idempotency_key IS NULL AND turn_id NOT IN (SELECT turn_id FROM turns ORDER BY started_at DESC, rowid DESC LIMIT ?2)))`;
      if (this.session.has('turn_events')) this.sql.exec(`DELETE FROM turn_events WHERE turn_id IN (${stale})`, before, keepTurns);
      this.sql.exec(`UPDATE turns SET events_pruned = 1, idempotency_key = NULL WHERE turn_id IN (${stale})`, before, keepTurns);
    });
    // A running turn has no end yet.
    return this.sql.exec<{ ended_at: number | null }>(`SELECT MIN(ended_at) AS ended_at FROM turns WHERE events_pruned = 0 AND ended_at IS NOT NULL`).one().ended_at ?? undefined;
  }

  /** The turn ended `at`: its stop's own time, so that the row and the event log agree to the millisecond. */
  endTurn(turnId: string, status: string, stopReason: string, errorCode: string | undefined, at: number): void {
    this.sql.exec(
      `UPDATE turns SET status = ?, ended_at = ?, stop_reason = ?, error_code = ? WHERE turn_id = ?`,
      status,
      at,
      stopReason,
      errorCode ?? null,
      turnId,
    );
    this.session.touch();
  }

  /** One page of turns, and whether more follow. */
  list(filter: TurnsFilter): { turns: ListedTurn[]; more: boolean } {
    if (!this.session.exists()) return { turns: [], more: false };
    const { where, values } = filtered(filter);
    const page = filter.before === undefined ? where : [...where, 'rowid < ?'];
    const rows = this.sql
      .exec<TurnRecord & { key: number; error_code: string | null; schedule_id: string | null }>(
        `SELECT rowid AS key, error_code, schedule_id, ${TURN_COLUMNS} FROM turns${page.length ? ` WHERE ${page.join(' AND ')}` : ''} ORDER BY rowid DESC LIMIT ?`,
        ...values,
        ...(filter.before === undefined ? [] : [filter.before]),
        filter.limit + 1,
      )
      .toArray();
    const turns = rows.slice(0, filter.limit).map((row) => ({ ...toTurnRow(row), key: row.key, errorCode: row.error_code, scheduleId: row.schedule_id }));
    return { turns, more: rows.length > filter.limit };
  }

  /** How many turns the filter keeps, on all pages. */
  count(filter: Omit<TurnsFilter, 'limit' | 'before'>): number {
    if (!this.session.exists()) return 0;
    const { where, values } = filtered(filter);
    return this.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM turns${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`, ...values).one().n;
  }

  runningTurns(): TurnRow[] {
    if (!this.session.exists()) return [];
    return this.sql.exec<TurnRecord>(`SELECT ${TURN_COLUMNS} FROM turns WHERE status = 'running'`).toArray().map(toTurnRow);
  }

  last(): LastTurn | undefined {
    if (!this.session.exists()) return undefined;
    const row = this.sql
      .exec<{ turn_id: string; status: string; stop_reason: string | null; error_code: string | null }>(
        `SELECT turn_id, status, stop_reason, error_code FROM turns ORDER BY started_at DESC, rowid DESC LIMIT 1`,
      )
      .toArray()[0];
    if (!row) return undefined;
    const last: LastTurn = { turnId: row.turn_id, status: statusOf({ status: row.status, stopReason: row.stop_reason }) };
    if (row.stop_reason) last.stopReason = row.stop_reason;
    if (row.error_code) last.errorCode = row.error_code;
    return last;
  }
}

/** A listing's conditions: its state, and the turns whose state changed at or after a time (their end, else their start). */
function filtered({ state, changedSince }: Omit<TurnsFilter, 'limit' | 'before'>): { where: string[]; values: number[] } {
  const where = state ? [`(${STATE_SQL[state]})`] : [];
  if (changedSince === undefined) return { where, values: [] };
  return { where: [...where, 'COALESCE(ended_at, started_at) >= ?'], values: [changedSince] };
}
