/**
 * The session's SQLite schema, as ordered migrations. `meta.schema_version` says how many have run;
 * each runs once, in order, inside the transaction of the first write that needs the tables.
 */
export const MIGRATIONS: string[][] = [
  [
    `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
    // Append-only history. `seq` is assigned by the store: an assistant message reserves the seqs
    // right after it for its tool results, so results stored later still stand in call order.
    `CREATE TABLE messages (
       seq INTEGER PRIMARY KEY,
       turn_id TEXT NOT NULL,
       role TEXT NOT NULL,
       body TEXT NOT NULL,
       created_at INTEGER NOT NULL
     )`,
    // Tool calls without a result yet. `state`: running (being executed in a turn) or waiting (for
    // the client's result or the user's permission). The row goes when the result is stored.
    `CREATE TABLE tool_calls (
       tool_call_id TEXT PRIMARY KEY,
       result_seq INTEGER NOT NULL,
       name TEXT NOT NULL,
       input TEXT NOT NULL,
       execution TEXT NOT NULL,
       state TEXT NOT NULL
     )`,
    `CREATE TABLE turns (
       turn_id TEXT PRIMARY KEY,
       status TEXT NOT NULL,
       model TEXT NOT NULL,
       started_at INTEGER NOT NULL,
       ended_at INTEGER,
       stop_reason TEXT,
       error_code TEXT
     )`,
    `CREATE TABLE notes (id INTEGER PRIMARY KEY AUTOINCREMENT, text TEXT NOT NULL, saved_at INTEGER NOT NULL)`,
  ],
  [
    // A message longer than one row allows keeps its first part in `messages.body`, the rest here.
    `ALTER TABLE messages ADD COLUMN parts INTEGER NOT NULL DEFAULT 1`,
    `CREATE TABLE message_parts (seq INTEGER NOT NULL, part INTEGER NOT NULL, data TEXT NOT NULL, PRIMARY KEY (seq, part))`,
    // Each turn's events, packed many to a row (storage bills per row written), for resumable
    // streams and idempotent replays; pruned by the alarm.
    `CREATE TABLE turn_events (
       turn_id TEXT NOT NULL,
       first_seq INTEGER NOT NULL,
       part INTEGER NOT NULL,
       data TEXT NOT NULL,
       PRIMARY KEY (turn_id, first_seq, part)
     )`,
    `ALTER TABLE turns ADD COLUMN mode TEXT NOT NULL DEFAULT 'none'`,
    `ALTER TABLE turns ADD COLUMN idempotency_key TEXT`,
    `ALTER TABLE turns ADD COLUMN request_hash TEXT`,
    `ALTER TABLE turns ADD COLUMN events_pruned INTEGER NOT NULL DEFAULT 0`,
    `CREATE INDEX turns_by_idempotency_key ON turns (idempotency_key) WHERE idempotency_key IS NOT NULL`,
  ],
  [
    // A summary of every message up to `up_to_seq` (the originals stay in `messages`). The latest
    // one and the messages after it are all a turn loads.
    `CREATE TABLE compactions (
       id INTEGER PRIMARY KEY AUTOINCREMENT,
       turn_id TEXT NOT NULL,
       up_to_seq INTEGER NOT NULL,
       summary TEXT NOT NULL,
       summarized INTEGER NOT NULL,
       tokens_before INTEGER NOT NULL,
       tokens_after INTEGER NOT NULL,
       created_at INTEGER NOT NULL
     )`,
  ],
  [
    // Every tool call id the session has used, so that a server that reuses ids (`call_0` in every
    // response) cannot pair a new call with an old result, even with the old messages not loaded.
    `CREATE TABLE tool_call_ids (id TEXT PRIMARY KEY) WITHOUT ROWID`,
    `INSERT OR IGNORE INTO tool_call_ids (id)
       SELECT json_extract(block.value, '$.toolCallId')
       FROM messages, json_each(messages.body, '$.content') AS block
       WHERE messages.role = 'assistant' AND messages.parts = 1
         AND json_type(messages.body, '$.content') = 'array'
         AND json_extract(block.value, '$.type') = 'tool_use'`,
  ],
  [
    // The chat socket's messages and answers, waiting for the completion that takes them (the chat protocol (docs/chat-socket.md):
    // `append_message` first, `request_completion` after), and the options of the socket's last
    // completion, for the one that resumes by itself once every pending call is answered.
    `CREATE TABLE socket_staged (seq INTEGER PRIMARY KEY AUTOINCREMENT, body TEXT NOT NULL)`,
    `CREATE TABLE socket_options (id INTEGER PRIMARY KEY CHECK (id = 1), body TEXT NOT NULL)`,
  ],
  [
    // The ids of the messages an AG-UI client sent that the session took: its client sends the whole
    // conversation on every run, and only what the session has not seen is new.
    `CREATE TABLE door_message_ids (id TEXT PRIMARY KEY) WITHOUT ROWID`,
  ],
  [
    // Lasting permission rules (the Harness protocol's rules), applied to every later call of a server tool.
    `CREATE TABLE permission_rules (
       id INTEGER PRIMARY KEY AUTOINCREMENT,
       tool_name TEXT NOT NULL,
       rule_content TEXT NOT NULL,
       behavior TEXT NOT NULL,
       source TEXT NOT NULL,
       created_at INTEGER NOT NULL
     )`,
  ],
  [
    // Pruning reads only the turns whose event logs are kept, and the newest turns by start: without
    // these it scanned and sorted every turn the session ever had.
    `CREATE INDEX turns_with_events ON turns (ended_at) WHERE events_pruned = 0`,
    `CREATE INDEX turns_by_start ON turns (started_at)`,
  ],
  [
    // Turns that wait for the session (ifBusy "enqueue", steered messages the running turn could not
    // take): their requests, in order. Their turn rows say `queued` until they start.
    `CREATE TABLE turn_queue (position INTEGER PRIMARY KEY AUTOINCREMENT, turn_id TEXT NOT NULL UNIQUE, request TEXT NOT NULL, model TEXT NOT NULL)`,
    `ALTER TABLE turns ADD COLUMN enqueued INTEGER NOT NULL DEFAULT 0`,
  ],
  [
    // History is a tree (docs/branches.md). Each message belongs to a segment (`branches`): a run of
    // messages made one after another on one line, from the message it forked at. A branch's path is
    // its ancestors' segments up to where each forked, then its own; reads take each by `(branch, seq)`.
    `CREATE TABLE branches (
       id INTEGER PRIMARY KEY AUTOINCREMENT,
       parent INTEGER,
       fork_seq INTEGER,
       ancestors TEXT NOT NULL,
       created_at INTEGER NOT NULL
     )`,
    `INSERT INTO branches (id, parent, fork_seq, ancestors, created_at) VALUES (1, NULL, NULL, '[]', 0)`,
    `ALTER TABLE messages ADD COLUMN branch INTEGER NOT NULL DEFAULT 1`,
    `ALTER TABLE messages ADD COLUMN parent_seq INTEGER`,
    // A session stored before branches is one line: each message's parent is the one before it (a
    // tool result's is the seq before it, which its call reserved, stored or not).
    `UPDATE messages SET parent_seq = CASE WHEN role = 'tool' THEN seq - 1 ELSE (SELECT MAX(m.seq) FROM messages AS m WHERE m.seq < messages.seq) END`,
    `CREATE INDEX messages_by_branch ON messages (branch, seq)`,
    `ALTER TABLE tool_calls ADD COLUMN branch INTEGER NOT NULL DEFAULT 1`,
    `ALTER TABLE compactions ADD COLUMN branch INTEGER NOT NULL DEFAULT 1`,
  ],
  [
    // Turns without a client (docs/background.md): each turn's end as a signed webhook, kept until
    // it is delivered or given up (attempts below), and the session's schedules.
    `CREATE TABLE webhook_deliveries (
       seq INTEGER PRIMARY KEY AUTOINCREMENT,
       webhook_id TEXT NOT NULL UNIQUE,
       type TEXT NOT NULL,
       turn_id TEXT NOT NULL,
       body TEXT NOT NULL,
       state TEXT NOT NULL,
       attempts INTEGER NOT NULL DEFAULT 0,
       next_at INTEGER,
       created_at INTEGER NOT NULL
     )`,
    `CREATE INDEX webhook_deliveries_due ON webhook_deliveries (state, next_at)`,
    `CREATE TABLE webhook_attempts (delivery_seq INTEGER NOT NULL, at INTEGER NOT NULL, status INTEGER, error TEXT)`,
    `CREATE INDEX webhook_attempts_by_delivery ON webhook_attempts (delivery_seq)`,
    `CREATE TABLE schedules (
       id TEXT PRIMARY KEY,
       spec TEXT NOT NULL,
       next_run_at INTEGER,
       last_turn_id TEXT,
       created_at INTEGER NOT NULL
     )`,
  ],
  [
    // A turn a schedule started names it (`GET .../turns`, its webhook): the schedule keeps only its last.
    `ALTER TABLE turns ADD COLUMN schedule_id TEXT`,
  ],
  [
    // Fewer rows written a turn (decision 42): a running turn enters the index of kept logs as it
    // ends, not as it starts; and a message's seq is read from the tables, not from a counter.
    `DROP INDEX turns_with_events`,
    `CREATE INDEX turns_with_events ON turns (ended_at) WHERE events_pruned = 0 AND ended_at IS NOT NULL`,
    `DELETE FROM meta WHERE key = 'next_seq'`,
  ],
];
