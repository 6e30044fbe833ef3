/**
 * A session's turns, a page at a time, newest first (by when each was asked for): `GET
 * /sessions/{id}/turns` (docs/background.md), and the A2A door's `ListTasks` (docs/a2a.md). Each is
 * told by its row alone: its state, model, times and how it stopped, never its events (a turn's own
 * route reads those), so a page costs one query however long its turns were.
 */
import type { TurnSummary, TurnsPage } from '../api/background-responses';
import { statusOf, type ListedTurn, type TurnState } from './store/turns';
import type { Session } from './turns-door';

export type TurnsQuery = {
  limit: number;
  /** The `next` of the page before. */
  cursor?: number;
  state?: TurnState;
  /** Only turns whose state changed at or after this time (ms): they ended then, or started then and have not ended. */
  changedSince?: number;
  /** Also count the turns the filter keeps on all pages (A2A's `totalSize`). */
  count?: boolean;
};

export function turnsPage({ stores, queue }: Pick<Session, 'stores' | 'queue'>, query: TurnsQuery): TurnsPage & { total?: number } {
  const filter = { ...(query.state ? { state: query.state } : {}), ...(query.changedSince === undefined ? {} : { changedSince: query.changedSince }) };
  const { turns, more } = stores.turns.list({ ...filter, limit: query.limit, ...(query.cursor === undefined ? {} : { before: query.cursor }) });
  const last = turns.at(-1);
  return {
    turns: turns.map((turn) => summary(turn, () => queue.position(turn.turnId))),
    ...(more && last ? { next: String(last.key) } : {}),
    ...(query.count ? { total: stores.turns.count(filter) } : {}),
  };
}

function summary(turn: ListedTurn, position: () => number): TurnSummary {
  const status = statusOf(turn);
  const base = { turnId: turn.turnId, status, model: turn.model, ...(turn.scheduleId ? { scheduleId: turn.scheduleId } : {}) };
  // A queued turn's row holds when it was asked for until it starts: its place in the queue says more.
  if (status === 'queued') {
    const place = position();
    return place > 0 ? { ...base, position: place } : base;
  }
  return {
    ...base,
    startedAt: new Date(turn.startedAt).toISOString(),
    ...(turn.endedAt === null ? {} : { endedAt: new Date(turn.endedAt).toISOString() }),
    ...(turn.stopReason ? { stopReason: turn.stopReason as TurnSummary['stopReason'] } : {}),
    ...(turn.errorCode ? { errorCode: turn.errorCode } : {}),
  };
}
