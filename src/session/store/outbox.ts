/**
 * The session's outbox to its user's object (docs/users.md): reports written in the same storage as
 * what they report, and deleted only once the user's object has taken them. Its table is not part of
 * the session's schema: it outlives the session's deletion (`deleteAll`), which it must still report.
 *
 * What a turn's end sent may be deleted later (`sweep`): with the outbox's next write, in its
 * transaction, or by the alarm, which the user link makes sure is due or about to be set (a turn's
 * timer sets it, `housekeeping.ts`). Deleted at once, it was a commit of its own at the end of every
 * turn, which the turn's last event waited for (bench/PROFILE.md, "The outbox's third commit"). Until
 * then this instance sends only what came after; a later instance, which does not know, sends the
 * rest again, and the user's object takes it once (a usage report by its id, remembered for 30 days;
 * an entry by its version; a deletion by its generation).
 */
import { reportSchema, type Report } from '../../users/reports';

export type OutboxRow = { id: number; report: Report; attempts: number };

/** Reports one send carries at most. */
const BATCH = 200;

export class Outbox {
  private ready = false;
  private lastId = 0;
  /** Every row up to this id was taken by the user's object; those rows wait for `sweep`. */
  private takenUpTo = 0;
  /** Every row up to this id is deleted. */
  private sweptUpTo = 0;
  /**
   * The rows not yet taken, as storage holds them, once read (when they fit one batch) and then kept
   * as this instance writes and sends: a turn's sends read and parsed back the reports it had just
   * written, and counted them again (bench/PROFILE.md, "The outbox kept"). Dropped, to be read again,
   * when a send fails, after a rollback (`rolledBack`) and after a `deleteAll`.
   */
  private kept: Map<number, OutboxRow> | undefined;

  constructor(private readonly storage: DurableObjectStorage) {}

  private get sql(): SqlStorage {
    if (!this.ready) {
      // A table this instance makes holds nothing yet: kept from the start, so that a new session's
      // sends never read back, and check again, the reports it has just written.
      if (!this.hasTable()) this.kept = new Map();
      this.storage.sql.exec(`CREATE TABLE IF NOT EXISTS user_outbox (
         id INTEGER PRIMARY KEY,
         kind TEXT NOT NULL,
         body TEXT NOT NULL,
         attempts INTEGER NOT NULL DEFAULT 0
       )`);
      this.ready = true;
    }
    return this.storage.sql;
  }

  /** Adds a model call's usage or the session's deletion. */
  add(report: Extract<Report, { kind: 'usage' | 'deleted' }>): number {
    this.sweep();
    return this.insert(report.kind, () => report);
  }

  /**
   * Adds the session's entry, made from its version (the row's id, which only grows): it replaces
   * any entry not sent yet, since only the latest matters.
   */
  putEntry(entry: (version: number) => Extract<Report, { kind: 'session' }>): void {
    this.sweep();
    this.sql.exec("DELETE FROM user_outbox WHERE kind = 'entry'");
    if (this.kept) for (const [id, row] of this.kept) if (row.report.kind === 'session') this.kept.delete(id);
    this.insert('entry', (id) => entry(id));
  }

  /**
   * An id above every earlier one, never reused (a sent batch is deleted by its ids): the time in
   * microseconds, one more than the last where two fall in the same millisecond. A later instance's
   * clock is later. It also orders what is told outside the outbox (a turn's start).
   */
  nextId(): number {
    this.lastId = Math.max(Date.now() * 1000, this.lastId + 1);
    return this.lastId;
  }

  private insert(kind: string, report: (id: number) => Report): number {
    const id = this.nextId();
    const body = JSON.stringify(report(id));
    this.sql.exec('INSERT INTO user_outbox (id, kind, body) VALUES (?, ?, ?)', id, kind, body);
    // Kept as storage will give it back (JSON's copy): what the caller holds may change after.
    this.kept?.set(id, { id, report: JSON.parse(body) as Report, attempts: 0 });
    return id;
  }

  /** The oldest reports waiting, as many as one send carries. */
  waiting(): OutboxRow[] {
    if (this.kept) return [...this.kept.values()].slice(0, BATCH);
    if (!this.hasTable()) return [];
    const rows = this.sql
      .exec<{ id: number; body: string; attempts: number }>('SELECT id, body, attempts FROM user_outbox WHERE id > ? ORDER BY id LIMIT ?', this.takenUpTo, BATCH + 1)
      .toArray()
      .map((row) => ({ id: row.id, report: reportSchema().parse(JSON.parse(row.body)), attempts: row.attempts }));
    // All of them read: kept from now on (ids only grow, so the map stays in their order).
    if (rows.length <= BATCH) this.kept = new Map(rows.map((row) => [row.id, row]));
    return rows.slice(0, BATCH);
  }

  /** Every usage report not yet taken: an erasure of the session carries them over (the numbers outlive it). */
  usageWaiting(): Extract<Report, { kind: 'usage' }>[] {
    if (this.kept) return [...this.kept.values()].flatMap(({ report }) => (report.kind === 'usage' ? [report] : []));
    if (!this.hasTable()) return [];
    return this.sql
      .exec<{ body: string }>("SELECT body FROM user_outbox WHERE kind = 'usage' AND id > ? ORDER BY id", this.takenUpTo)
      .toArray()
      .flatMap((row) => {
        const report = reportSchema().parse(JSON.parse(row.body));
        return report.kind === 'usage' ? [report] : [];
      });
  }

  /** The reports up to `id` were taken: no longer sent, deleted by `sweep`. */
  taken(upTo: number): void {
    this.takenUpTo = Math.max(this.takenUpTo, upTo);
    if (this.kept) for (const id of this.kept.keys()) if (id <= upTo) this.kept.delete(id);
  }

  /** Whether rows taken are still stored. */
  unswept(): boolean {
    return this.takenUpTo > this.sweptUpTo;
  }

  /** Deletes the rows taken: with another write to the outbox, in its transaction, or from the alarm. */
  sweep(): void {
    if (!this.unswept()) return;
    this.sql.exec('DELETE FROM user_outbox WHERE id <= ?', this.takenUpTo);
    this.sweptUpTo = this.takenUpTo;
  }

  /** A send failed: its attempts count, for the backoff; returns the most attempts of any row waiting. */
  failed(upTo: number): number {
    this.kept = undefined;
    this.sql.exec('UPDATE user_outbox SET attempts = attempts + 1 WHERE id > ? AND id <= ?', this.takenUpTo, upTo);
    return this.sql.exec<{ n: number | null }>('SELECT MAX(attempts) AS n FROM user_outbox WHERE id > ?', this.takenUpTo).one().n ?? 0;
  }

  /** The reports waiting to be sent. */
  size(): number {
    if (this.kept) return this.kept.size;
    return this.hasTable() ? this.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM user_outbox WHERE id > ?', this.takenUpTo).one().n : 0;
  }

  /** After `deleteAll`: the table is gone, and made again by the next report. */
  forget(): void {
    this.ready = false;
    this.sweptUpTo = this.takenUpTo;
    this.kept = undefined;
  }

  /**
   * A transaction rolled back: what it wrote here is not stored, so what is kept is read again, and
   * the table, which it may have made, is looked for again.
   */
  rolledBack(): void {
    this.kept = undefined;
    this.ready = false;
  }

  /** Made by this instance, or found in storage (made by one before it): one look in `sqlite_master`. */
  private hasTable(): boolean {
    return this.ready || this.storage.sql.exec(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'user_outbox'`).toArray().length > 0;
  }
}
