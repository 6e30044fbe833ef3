/**
 * A user's list of sessions (`GET /sessions`), as the sessions report it: one row a session, newest
 * change first. A deleted session leaves a tombstone of its generation, so that a report it sent
 * before its deletion, retried after it, cannot bring it back. An erasure of the user marks its time:
 * a session made before it that reports after it (its first turn ran while the user was erased, so
 * the list did not have it yet) is not listed, and is told to erase itself.
 */
import { sessionEntrySchema, type SessionEntry } from '../../api/session-entry';
import type { Report } from '../reports';

type EntryReport = Extract<Report, { kind: 'session' }>;
type StartReport = Extract<Report, { kind: 'started' }>;
type Row = { entry: string; updated_at: number; session_id: string };

export const SESSION_INDEX_SCHEMA = [
  `CREATE TABLE IF NOT EXISTS sessions (
     session_id TEXT PRIMARY KEY,
     generation INTEGER NOT NULL,
     version INTEGER NOT NULL,
     updated_at INTEGER NOT NULL,
     entry TEXT NOT NULL
   )`,
  `CREATE INDEX IF NOT EXISTS sessions_by_update ON sessions (updated_at DESC, session_id)`,
  `CREATE TABLE IF NOT EXISTS tombstones (session_id TEXT PRIMARY KEY, generation INTEGER NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS user_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
];

/** What became of an entry: listed, ignored (a newer one is), or refused (its session predates an erasure). */
export type Placed = 'listed' | 'stale' | 'erased';

export type SessionPage = { sessions: SessionEntry[]; next?: string };

export class SessionIndex {
  constructor(private readonly sql: SqlStorage) {}

  /** A session's entry, unless the index holds a newer one of it or it was deleted after. */
  put({ generation, version, entry }: EntryReport): Placed {
    if (generation <= this.erasedBefore()) return 'erased';
    if (this.stale(entry.sessionId, generation, version) === true) return 'stale';
    this.write(generation, version, entry);
    return 'listed';
  }

  /** A turn started: the entry runs, with the counts it had (none for a session new to the list). */
  start({ generation, version, entry }: StartReport): Placed {
    if (generation <= this.erasedBefore()) return 'erased';
    const held = this.stale(entry.sessionId, generation, version);
    if (held === true) return 'stale';
    const counts = held?.generation === generation ? sessionEntrySchema().parse(JSON.parse(held.entry)) : { messageCount: 0, pendingToolCalls: 0 };
    this.write(generation, version, { ...entry, messageCount: counts.messageCount, pendingToolCalls: counts.pendingToolCalls, running: true });
    return 'listed';
  }

  /**
   * True when a newer report of the session was applied, or it was deleted since; else what is held,
   * its entry as stored (parsed only by a start, which keeps its counts: an end replaces it whole).
   */
  private stale(sessionId: string, generation: number, version: number): true | { generation: number; entry: string } | undefined {
    const dead = this.sql.exec<{ generation: number }>('SELECT generation FROM tombstones WHERE session_id = ?', sessionId).toArray()[0];
    if (dead && dead.generation >= generation) return true;
    const held = this.sql.exec<{ generation: number; version: number; entry: string }>('SELECT generation, version, entry FROM sessions WHERE session_id = ?', sessionId).toArray()[0];
    if (held && (held.generation > generation || (held.generation === generation && held.version >= version))) return true;
    return held && { generation: held.generation, entry: held.entry };
  }

  private write(generation: number, version: number, entry: SessionEntry): void {
    this.sql.exec(
      `INSERT INTO sessions (session_id, generation, version, updated_at, entry) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (session_id) DO UPDATE SET generation = excluded.generation, version = excluded.version,
         updated_at = excluded.updated_at, entry = excluded.entry`,
      entry.sessionId,
      generation,
      version,
      Date.parse(entry.updatedAt),
      JSON.stringify(entry),
    );
  }

  /** The session of `generation` (or an older one) is gone. */
  remove(sessionId: string, generation: number): void {
    this.sql.exec('DELETE FROM sessions WHERE session_id = ? AND generation <= ?', sessionId, generation);
    this.sql.exec(
      `INSERT INTO tombstones (session_id, generation) VALUES (?, ?)
       ON CONFLICT (session_id) DO UPDATE SET generation = max(generation, excluded.generation)`,
      sessionId,
      generation,
    );
  }

  /** Every session listed now goes (the user is erased); their tombstones keep late reports out. */
  removeAll(now: number): number {
    const count = this.count();
    this.sql.exec(`INSERT INTO user_meta (key, value) VALUES ('erased_before', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, String(now));
    this.sql.exec(
      `INSERT INTO tombstones (session_id, generation) SELECT session_id, generation FROM sessions WHERE true
       ON CONFLICT (session_id) DO UPDATE SET generation = max(tombstones.generation, excluded.generation)`,
    );
    this.sql.exec('DELETE FROM sessions');
    return count;
  }

  /** When the user was last erased (ms): sessions made before it are gone. */
  private erasedBefore(): number {
    return Number(this.sql.exec<{ value: string }>(`SELECT value FROM user_meta WHERE key = 'erased_before'`).toArray()[0]?.value ?? -1);
  }

  count(): number {
    return this.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM sessions').one().n;
  }

  /** A page, newest change first; `cursor` is the `next` of the page before (`<updatedAt>:<sessionId>`). */
  page(limit: number, cursor?: string): SessionPage {
    const after = cursor === undefined ? undefined : { at: Number(cursor.slice(0, cursor.indexOf(':'))), id: cursor.slice(cursor.indexOf(':') + 1) };
    const rows = after
      ? this.sql.exec<Row>(
          `SELECT entry, updated_at, session_id FROM sessions WHERE updated_at < ? OR (updated_at = ? AND session_id > ?)
           ORDER BY updated_at DESC, session_id LIMIT ?`,
          after.at,
          after.at,
          after.id,
          limit + 1,
        )
      : this.sql.exec<Row>('SELECT entry, updated_at, session_id FROM sessions ORDER BY updated_at DESC, session_id LIMIT ?', limit + 1);
    const all = rows.toArray();
    const shown = all.slice(0, limit);
    const last = shown.at(-1);
    const sessions = shown.map((row) => sessionEntrySchema().parse(JSON.parse(row.entry)));
    return all.length > limit && last ? { sessions, next: `${last.updated_at}:${last.session_id}` } : { sessions };
  }
}
