/**
 * The session's own row: the `meta` table (when it was created and changed, its id, title, usage,
 * token calibration, the schema version), and the schema's migrations.
 * Whether the session exists at all is known here: every other table family asks this one.
 */
import { addUsage, emptyUsage, type Usage } from '../../agent/usage';
import * as z from '../../lib/zod';
import { MIGRATIONS } from './migrations';
import { CORE, LAZY, SCHEMA_AT, type LazyTable } from './schema';

const usageSchema = z.object({
  inputTokens: z.number(),
  outputTokens: z.number(),
  cachedInputTokens: z.number(),
  cacheWriteInputTokens: z.optional(z.number()),
  reasoningTokens: z.number(),
});

const forkedFromSchema = z.strictObject({ sessionId: z.string(), messageId: z.string() });

/**
 * The names of the tables a storage holds, read in one statement when first asked, then kept as
 * the session makes more (`ensure`): a name not among them is a table not made. Shared by every
 * store over the same storage (a test's or a bench's as well as the object's own), so that a table
 * one of them makes is seen by all. Dropped after a rollback (`transaction`), after migrations that
 * ran (`runMigrations`) and after a `deleteAll` (`forget`), so that they are read again from what
 * storage holds. Looked up table by table, a family not yet made cost a query of `sqlite_master`
 * at each read, about a fifth of the launcher's time (bench/PROFILE.md, "A lookup per family not
 * made").
 */
const tablesOf = new WeakMap<DurableObjectStorage, Set<string>>();

/**
 * The `meta` rows, read in one statement when first asked, then kept as they are written: a turn
 * asked for them one by one, seventeen statements a turn for a dozen small rows (bench/PROFILE.md,
 * "The meta rows kept"). Shared by every `SessionMeta` over the same storage, and dropped with the
 * table names: after a rollback, after migrations that ran and after a `deleteAll`.
 */
const rowsOf = new WeakMap<DurableObjectStorage, Map<string, string>>();

/** Drops what is kept of a storage's tables and rows: read again from storage when next asked. */
function dropKept(storage: DurableObjectStorage): void {
  tablesOf.delete(storage);
  rowsOf.delete(storage);
}

export class SessionMeta {
  /** Told when a transaction rolls back: what a store keeps of its writes may no longer hold. */
  private readonly rollbackListeners: (() => void)[] = [];

  constructor(
    private readonly storage: DurableObjectStorage,
    readonly now: () => number = Date.now,
  ) {}

  private get sql(): SqlStorage {
    return this.storage.sql;
  }

  /** A session exists once its first turn was accepted. Reads never create tables. */
  exists(): boolean {
    // Both kept in memory (`tablesOf`, `rowsOf`): no statement once read.
    return this.hasTables() && this.get('created_at') !== undefined;
  }

  /** After `deleteAll`: the session is gone. */
  forget(): void {
    dropKept(this.storage);
  }

  /** Whether a lazy family's tables were made (`schema.ts`): a read of one that was not answers empty. */
  has(table: LazyTable): boolean {
    return this.tableNames().has(table);
  }

  /** Makes a lazy family's tables if they are not made yet: called by each write to them, in its transaction. */
  ensure(table: LazyTable): void {
    if (this.has(table)) return;
    this.sql.exec(LAZY[table].join(';\n'));
    this.tableNames().add(table);
  }

  /**
   * Brings an existing session's tables to the current schema. Runs when the object wakes, before
   * any read, so that code never meets an older schema (a session stored by an earlier deploy).
   */
  migrate(): void {
    if (!this.hasTables()) return;
    this.transaction(() => this.runMigrations());
  }

  /** Creates the tables and the session's first row if needed; runs pending migrations. */
  ensureCreated(sessionId: string): void {
    // The object's constructor ran any pending migration when it woke (`migrate`).
    if (this.exists()) return;
    this.transaction(() => {
      this.sql.exec(`CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
      this.runMigrations();
      if (this.get('created_at') === undefined) {
        const now = String(this.now());
        this.set('session_id', sessionId);
        this.set('created_at', now);
        this.set('updated_at', now);
      }
    });
  }

  /** Runs `write` as one transaction: all of it is stored, or none. */
  transaction<T>(write: () => T): T {
    try {
      return this.storage.transactionSync(write);
    } catch (error) {
      // Rolled back: a table made in it is not there any more, nor a session it made, nor a row it set.
      dropKept(this.storage);
      for (const listener of this.rollbackListeners) listener();
      throw error;
    }
  }

  /** `listener` runs whenever a transaction of `transaction` rolls back. */
  onRollback(listener: () => void): void {
    this.rollbackListeners.push(listener);
  }

  /** Marks the session as changed now. */
  touch(): void {
    this.set('updated_at', String(this.now()));
  }

  /** The session's id, as its first turn named it. */
  sessionId(): string | undefined {
    return this.hasTables() ? this.get('session_id') : undefined;
  }

  times(): { createdAt: string; updatedAt: string } {
    return { createdAt: new Date(Number(this.get('created_at'))).toISOString(), updatedAt: new Date(Number(this.get('updated_at'))).toISOString() };
  }

  title(): string | undefined {
    return this.get('title');
  }

  setTitle(title: string): void {
    this.set('title', title);
  }

  /** The session's running total of token usage. */
  addUsage(usage: Usage): void {
    this.set('usage', JSON.stringify(addUsage(this.usage(), usage)));
  }

  usage(): Usage {
    const stored = this.get('usage');
    return stored ? { ...emptyUsage(), ...usageSchema.parse(JSON.parse(stored)) } : emptyUsage();
  }

  calibration(): number {
    return Number(this.get('token_calibration') ?? 1);
  }

  /** Written only when it moved enough to matter: a row write per model call is not free. */
  setCalibration(value: number): void {
    if (Math.abs(value - this.calibration()) >= 0.02) this.set('token_calibration', String(value));
  }

  /**
   * The seq before which messages go to the model without their images and thinking: a provider
   * refused a call that held them (agent/earlier-parts.ts). 0 while none was refused.
   */
  partsRefusedBefore(): number {
    return Number(this.get('parts_refused_before') ?? 0);
  }

  setPartsRefusedBefore(seq: number): void {
    if (seq > this.partsRefusedBefore()) this.set('parts_refused_before', String(seq));
  }

  /** The segment that holds the active leaf (docs/branches.md); 1 in a session stored before branches. */
  activeBranch(): number {
    return Number(this.get('active_branch') ?? 1);
  }

  setActiveBranch(branch: number): void {
    this.set('active_branch', String(branch));
  }

  /** The session and message a fork copied its history from. */
  forkedFrom(): { sessionId: string; messageId: string } | undefined {
    const stored = this.get('forked_from');
    return stored === undefined ? undefined : forkedFromSchema.parse(JSON.parse(stored));
  }

  setForkedFrom(from: { sessionId: string; messageId: string }): void {
    this.set('forked_from', JSON.stringify(from));
  }

  /** The session a sub-agent's session runs for (set by its first turn). */
  parentSession(): string | undefined {
    return this.get('parent_session');
  }

  setParentSession(sessionId: string): void {
    this.set('parent_session', sessionId);
  }

  /** When the session was made (ms): the generation its user's object knows it by (docs/users.md). */
  generation(): number {
    return Number(this.get('created_at') ?? 0);
  }

  private hasTables(): boolean {
    return this.tableNames().has('meta');
  }

  private tableNames(): Set<string> {
    let names = tablesOf.get(this.storage);
    if (!names) {
      names = new Set(this.sql.exec<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table'`).toArray().map((row) => row.name));
      tablesOf.set(this.storage, names);
    }
    return names;
  }

  private runMigrations(): void {
    const version = Number(this.get('schema_version') ?? 0);
    // A new session makes its core tables in one go, the rest as it first writes them (`schema.ts`).
    const statements = version === 0 && SCHEMA_AT === MIGRATIONS.length ? [CORE] : MIGRATIONS.slice(version);
    for (const [index, batch] of statements.entries()) {
      // The meta table is made already. The rest of a batch goes in one `exec`: made statement by
      // statement, a new session's schema held its first event about half a millisecond longer
      // (bench/PROFILE.md, "One exec for the schema").
      const run = version === 0 && index === 0 ? batch.filter((statement) => !statement.startsWith('CREATE TABLE meta')) : batch;
      if (run.length > 0) this.sql.exec(run.join(';\n'));
    }
    // The tables those statements made, and the rows they changed: read again when next asked.
    if (statements.length > 0) dropKept(this.storage);
    if (version !== MIGRATIONS.length) this.set('schema_version', String(MIGRATIONS.length));
  }

  private get(key: string): string | undefined {
    return this.rows().get(key);
  }

  private set(key: string, value: string): void {
    const rows = this.rows();
    this.sql.exec(`INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`, key, value);
    // Once stored: a write that throws leaves the rows as the table has them.
    rows.set(key, value);
  }

  private rows(): Map<string, string> {
    let rows = rowsOf.get(this.storage);
    if (!rows) {
      const stored = this.hasTables() ? this.sql.exec<{ key: string; value: string }>(`SELECT key, value FROM meta`).toArray() : [];
      rows = new Map(stored.map((row) => [row.key, row.value]));
      rowsOf.set(this.storage, rows);
    }
    return rows;
  }
}
