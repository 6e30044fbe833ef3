/**
 * The schema the migrations lead to, `CORE` and every family of `LAZY`, which a new session makes
 * without replaying them (`meta.ts`): replaying them (their ALTERs, their data moves over empty
 * tables) cost a new session's first turn about a millisecond more (bench/PROFILE.md). `SCHEMA_AT`
 * is how many migrations it equals; a test holds the two ways to the same tables, columns, indexes
 * and rows. A migration added without updating this fails that test, and meanwhile new sessions
 * replay the migrations, as before.
 *
 * A new session makes only `CORE`, the tables every turn reads and writes before its first event.
 * Each family of `LAZY` is made by the first write that needs it, in that write's transaction
 * (`SessionMeta.ensure`), and until then a read of it answers as its empty table would
 * (`SessionMeta.has`, from the table names read once): made with the rest, they held a new
 * session's first event about a millisecond (bench/PROFILE.md, "A new session made lean"). So a
 * migration that changes a lazy family's table must change it only where it exists, and change its
 * statements here, which is how the sessions that have not made it yet will make it.
 */
export const SCHEMA_AT = 13;

export const CORE: string[] = [
    `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
    `CREATE TABLE messages (seq INTEGER PRIMARY KEY, turn_id TEXT NOT NULL, role TEXT NOT NULL, body TEXT NOT NULL, created_at INTEGER NOT NULL, parts INTEGER NOT NULL DEFAULT 1, branch INTEGER NOT NULL DEFAULT 1, parent_seq INTEGER)`,
    `CREATE TABLE turns (turn_id TEXT PRIMARY KEY, status TEXT NOT NULL, model TEXT NOT NULL, started_at INTEGER NOT NULL, ended_at INTEGER, stop_reason TEXT, error_code TEXT, mode TEXT NOT NULL DEFAULT 'none', idempotency_key TEXT, request_hash TEXT, events_pruned INTEGER NOT NULL DEFAULT 0, enqueued INTEGER NOT NULL DEFAULT 0, schedule_id TEXT)`,
    `CREATE INDEX turns_by_idempotency_key ON turns (idempotency_key) WHERE idempotency_key IS NOT NULL`,
    `CREATE INDEX turns_with_events ON turns (ended_at) WHERE events_pruned = 0 AND ended_at IS NOT NULL`,
    `CREATE INDEX turns_by_start ON turns (started_at)`,
    `CREATE TABLE branches (id INTEGER PRIMARY KEY AUTOINCREMENT, parent INTEGER, fork_seq INTEGER, ancestors TEXT NOT NULL, created_at INTEGER NOT NULL)`,
    // The main branch every session starts on (its messages' `branch` defaults to 1).
    `INSERT INTO branches (id, parent, fork_seq, ancestors, created_at) VALUES (1, NULL, NULL, '[]', 0)`,
    `CREATE INDEX messages_by_branch ON messages (branch, seq)`,
];

/** The families made on first write, each named by its first table (the one `has` asks about). */
export const LAZY = {
  tool_calls: [
    `CREATE TABLE tool_calls (tool_call_id TEXT PRIMARY KEY, result_seq INTEGER NOT NULL, name TEXT NOT NULL, input TEXT NOT NULL, execution TEXT NOT NULL, state TEXT NOT NULL, branch INTEGER NOT NULL DEFAULT 1)`,
    `CREATE TABLE tool_call_ids (id TEXT PRIMARY KEY) WITHOUT ROWID`,
  ],
  message_parts: [`CREATE TABLE message_parts (seq INTEGER NOT NULL, part INTEGER NOT NULL, data TEXT NOT NULL, PRIMARY KEY (seq, part))`],
  turn_events: [`CREATE TABLE turn_events (turn_id TEXT NOT NULL, first_seq INTEGER NOT NULL, part INTEGER NOT NULL, data TEXT NOT NULL, PRIMARY KEY (turn_id, first_seq, part))`],
  notes: [`CREATE TABLE notes (id INTEGER PRIMARY KEY AUTOINCREMENT, text TEXT NOT NULL, saved_at INTEGER NOT NULL)`],
  compactions: [
    `CREATE TABLE compactions (id INTEGER PRIMARY KEY AUTOINCREMENT, turn_id TEXT NOT NULL, up_to_seq INTEGER NOT NULL, summary TEXT NOT NULL, summarized INTEGER NOT NULL, tokens_before INTEGER NOT NULL, tokens_after INTEGER NOT NULL, created_at INTEGER NOT NULL, branch INTEGER NOT NULL DEFAULT 1)`,
  ],
  socket_staged: [
    `CREATE TABLE socket_staged (seq INTEGER PRIMARY KEY AUTOINCREMENT, body TEXT NOT NULL)`,
    `CREATE TABLE socket_options (id INTEGER PRIMARY KEY CHECK (id = 1), body TEXT NOT NULL)`,
  ],
  door_message_ids: [`CREATE TABLE door_message_ids (id TEXT PRIMARY KEY) WITHOUT ROWID`],
  permission_rules: [
    `CREATE TABLE permission_rules (id INTEGER PRIMARY KEY AUTOINCREMENT, tool_name TEXT NOT NULL, rule_content TEXT NOT NULL, behavior TEXT NOT NULL, source TEXT NOT NULL, created_at INTEGER NOT NULL)`,
  ],
  turn_queue: [`CREATE TABLE turn_queue (position INTEGER PRIMARY KEY AUTOINCREMENT, turn_id TEXT NOT NULL UNIQUE, request TEXT NOT NULL, model TEXT NOT NULL)`],
  webhook_deliveries: [
    `CREATE TABLE webhook_deliveries (seq INTEGER PRIMARY KEY AUTOINCREMENT, webhook_id TEXT NOT NULL UNIQUE, type TEXT NOT NULL, turn_id TEXT NOT NULL, body TEXT NOT NULL, state TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, next_at INTEGER, created_at INTEGER NOT NULL)`,
    `CREATE INDEX webhook_deliveries_due ON webhook_deliveries (state, next_at)`,
    `CREATE TABLE webhook_attempts (delivery_seq INTEGER NOT NULL, at INTEGER NOT NULL, status INTEGER, error TEXT)`,
    `CREATE INDEX webhook_attempts_by_delivery ON webhook_attempts (delivery_seq)`,
  ],
  schedules: [`CREATE TABLE schedules (id TEXT PRIMARY KEY, spec TEXT NOT NULL, next_run_at INTEGER, last_turn_id TEXT, created_at INTEGER NOT NULL)`],
} satisfies Record<string, string[]>;

export type LazyTable = keyof typeof LAZY;
