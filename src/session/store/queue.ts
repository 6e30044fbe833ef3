/**
 * The turns that wait for the session, in order (`turn_queue`): each with its request, read back
 * through the turns API's schema, and the model it asked for. Stored, so that an eviction or a
 * restart loses none of them.
 */
import { turnRequestSchema, type TurnRequest } from '../../api/turn-request';
import type { SessionMeta } from './meta';

/** `request` is undefined when the stored one no longer reads as a turn request (it cannot run). */
export type QueuedTurn = { turnId: string; request: TurnRequest | undefined; model: string };
export type QueuePosition = { turnId: string; position: number };

export class QueueStore {
  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly meta: SessionMeta,
  ) {}

  private get sql(): SqlStorage {
    return this.storage.sql;
  }

  add(turnId: string, request: TurnRequest, model: string): void {
    this.meta.ensure('turn_queue');
    this.sql.exec(`INSERT INTO turn_queue (turn_id, request, model) VALUES (?, ?, ?)`, turnId, JSON.stringify(request), model);
  }

  /** The waiting turns, first to run first, with their places from 1. */
  positions(): QueuePosition[] {
    if (!this.meta.has('turn_queue')) return [];
    return this.sql
      .exec<{ turn_id: string }>(`SELECT turn_id FROM turn_queue ORDER BY position`)
      .toArray()
      .map((row, index) => ({ turnId: row.turn_id, position: index + 1 }));
  }

  size(): number {
    if (!this.meta.has('turn_queue')) return 0;
    return this.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM turn_queue`).one().n;
  }

  first(): QueuedTurn | undefined {
    if (!this.meta.has('turn_queue')) return undefined;
    const row = this.sql.exec<{ turn_id: string; request: string; model: string }>(`SELECT turn_id, request, model FROM turn_queue ORDER BY position LIMIT 1`).toArray()[0];
    return row && { turnId: row.turn_id, request: readRequest(row.request), model: row.model };
  }

  /** A waiting turn's request (undefined: it does not wait, or no longer reads as one). */
  request(turnId: string): TurnRequest | undefined {
    if (!this.meta.has('turn_queue')) return undefined;
    const row = this.sql.exec<{ request: string }>(`SELECT request FROM turn_queue WHERE turn_id = ?`, turnId).toArray()[0];
    return row && readRequest(row.request);
  }

  /** Takes a turn out of the queue; whether it was there. */
  remove(turnId: string): boolean {
    if (!this.meta.has('turn_queue')) return false;
    return this.sql.exec(`DELETE FROM turn_queue WHERE turn_id = ?`, turnId).rowsWritten > 0;
  }
}

function readRequest(stored: string): TurnRequest | undefined {
  const request = turnRequestSchema().safeParse(JSON.parse(stored));
  return request.success ? request.data : undefined;
}
