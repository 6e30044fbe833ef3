/**
 * All SQL of a session, parameterized, synchronous (Durable Object SQLite). The history is
 * append-only: rows are inserted, never updated. JSON read back goes through the zod schemas.
 */
import { historyMessageSchema, type AssistantMessage, type HistoryMessage, type ToolMessage } from '../api/content';
import type { PendingToolCall, ToolExecution } from '../agent/events';
import { permissionRuleSchema, type PermissionRule } from '../tools/permission-rules';
import { addUsage, emptyUsage, type Usage } from '../agent/usage';
import { z } from '../lib/zod';
import type { Note, NotesStore } from '../tools/types';
import { MIGRATIONS } from './migrations';
import { splitForRows } from './row-chunks';
import type { LastTurn } from './turn-store';

const inputSchema = z.record(z.string(), z.unknown());
const usageSchema = z.object({
  inputTokens: z.number(),
  outputTokens: z.number(),
  cachedInputTokens: z.number(),
  cacheWriteInputTokens: z.number().optional(),
  reasoningTokens: z.number(),
});

export type CompactionRecord = { upToSeq: number; summary: string; summarized: number };

/** How a compaction shows in `GET /sessions/{id}/messages`: marked, after what it summarises. */
export type CompactionMarker = { role: 'compaction'; summary: string; summarizedMessages: number };

export type SessionSummary = {
  /** Made by the model after the first exchange (seed 003's conversation title). */
  title?: string;
  createdAt: string;
  updatedAt: string;
  messageCount: number;
  pendingToolCalls: PendingToolCall[];
  usage: Usage;
  lastTurn?: LastTurn;
};

export class SessionStore implements NotesStore {
  private created = false;
  /**
   * The messages the last turn loaded, parsed, kept for the next: a long-lived session would
   * otherwise read and parse its whole history again on every turn, before the model is even
   * called. Checked against the table on every use, so that it can never serve a stale history.
   */
  private loaded: LoadedHistory | undefined;

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly now: () => number = Date.now,
  ) {}

  private get sql(): SqlStorage {
    return this.storage.sql;
  }

  /** A session exists once its first turn was accepted. Reads never create tables. */
  exists(): boolean {
    // Known once seen: the tables and the first row stay until the session is deleted (`forget`).
    if (!this.created) this.created = this.hasTables() && this.meta('created_at') !== undefined;
    return this.created;
  }

  /** After `deleteAll`: nothing this store remembers holds any more. */
  forget(): void {
    this.created = false;
    this.loaded = undefined;
  }

  private hasTables(): boolean {
    return this.sql.exec(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'`).toArray().length > 0;
  }

  private runMigrations(): void {
    const version = Number(this.meta('schema_version') ?? 0);
    for (const [index, statements] of MIGRATIONS.entries()) {
      if (index < version) continue;
      for (const statement of statements) {
        if (index === 0 && statement.startsWith('CREATE TABLE meta')) continue;
        this.sql.exec(statement);
      }
    }
    if (version !== MIGRATIONS.length) this.setMeta('schema_version', String(MIGRATIONS.length));
  }

  /**
   * Brings an existing session's tables to the current schema. Runs when the object wakes, before
   * any read, so that code never meets an older schema (a session stored by an earlier deploy).
   */
  migrate(): void {
    if (!this.hasTables()) return;
    this.storage.transactionSync(() => this.runMigrations());
  }

  /** Creates the tables and the session's first row if needed; runs pending migrations. */
  ensureCreated(sessionId: string): void {
    // The object's constructor ran any pending migration when it woke (`migrate`).
    if (this.exists()) return;
    this.storage.transactionSync(() => {
      this.sql.exec(`CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
      this.runMigrations();
      if (this.meta('created_at') === undefined) {
        const now = String(this.now());
        this.setMeta('session_id', sessionId);
        this.setMeta('created_at', now);
        this.setMeta('updated_at', now);
        this.setMeta('next_seq', '1');
      }
    });
  }

  // --- history -------------------------------------------------------------------------------

  appendMessage(turnId: string, message: HistoryMessage): number {
    const seq = Number(this.meta('next_seq'));
    this.insertMessage(seq, turnId, message);
    this.setMeta('next_seq', String(seq + 1));
    return seq;
  }

  /** Stores an assistant message and opens a row for each of its tool calls, with its result's seq. */
  appendAssistant(turnId: string, message: AssistantMessage): void {
    this.storage.transactionSync(() => {
      const seq = Number(this.meta('next_seq'));
      this.insertMessage(seq, turnId, message);
      const calls = typeof message.content === 'string' ? [] : message.content.filter((block) => block.type === 'tool_use');
      for (const [index, call] of calls.entries()) {
        this.sql.exec(`INSERT OR IGNORE INTO tool_call_ids (id) VALUES (?)`, call.toolCallId);
        this.sql.exec(
          `INSERT INTO tool_calls (tool_call_id, result_seq, name, input, execution, state) VALUES (?, ?, ?, ?, 'trusted', 'running')`,
          call.toolCallId,
          seq + 1 + index,
          call.name,
          JSON.stringify(call.input),
        );
      }
      this.setMeta('next_seq', String(seq + 1 + calls.length));
    });
  }

  /** Stores a tool result at the seq its call reserved, and closes the call. */
  appendToolResult(turnId: string, message: ToolMessage): void {
    this.storage.transactionSync(() => {
      const row = this.sql
        .exec<{ result_seq: number }>(`SELECT result_seq FROM tool_calls WHERE tool_call_id = ?`, message.toolCallId)
        .toArray()[0];
      if (!row) throw new Error(`No open tool call ${message.toolCallId} to store a result for.`);
      this.insertMessage(row.result_seq, turnId, message);
      this.sql.exec(`DELETE FROM tool_calls WHERE tool_call_id = ?`, message.toolCallId);
    });
  }

  setCallState(toolCallId: string, execution: ToolExecution, state: 'running' | 'waiting'): void {
    this.sql.exec(`UPDATE tool_calls SET execution = ?, state = ? WHERE tool_call_id = ?`, execution, state, toolCallId);
  }

  /** The messages after `seq`, in order: what a turn loads after the latest compaction. */
  historyAfter(seq: number): HistoryMessage[] {
    const stored = this.sql
      .exec<HistoryShape>(`SELECT COUNT(*) AS count, COALESCE(MAX(seq), 0) AS last, COALESCE(SUM(seq), 0) AS total FROM messages WHERE seq > ?`, seq)
      .one();
    let loaded = this.loaded;
    if (!loaded || loaded.afterSeq !== seq || !sameShape(loaded, stored)) {
      const rows = this.sql.exec<MessageRow>(`SELECT seq, body, parts FROM messages WHERE seq > ? ORDER BY seq`, seq).toArray();
      loaded = { afterSeq: seq, seqs: rows.map((row) => row.seq), messages: rows.map((row) => deepFreeze(this.readMessage(row))) };
      this.loaded = loaded;
    }
    return [...loaded.messages];
  }

  // --- context: compactions and the token calibration ---------------------------------------------

  latestCompaction(): CompactionRecord | undefined {
    if (!this.exists()) return undefined;
    const row = this.sql
      .exec<{ up_to_seq: number; summary: string; summarized: number }>(`SELECT up_to_seq, summary, summarized FROM compactions ORDER BY id DESC LIMIT 1`)
      .toArray()[0];
    return row && { upToSeq: row.up_to_seq, summary: row.summary, summarized: row.summarized };
  }

  /** Records a summary of the next `messagesSummarized` messages after the previous compaction. */
  addCompaction(
    turnId: string,
    compaction: { summary: string; messagesSummarized: number; totalSummarized: number; tokensBefore: number; tokensAfter: number },
  ): void {
    const after = this.latestCompaction()?.upToSeq ?? 0;
    const last = this.sql
      .exec<{ seq: number }>(`SELECT seq FROM messages WHERE seq > ? ORDER BY seq LIMIT 1 OFFSET ?`, after, compaction.messagesSummarized - 1)
      .toArray()[0];
    if (!last) throw new Error(`Cannot find the last of ${compaction.messagesSummarized} messages to summarise.`);
    this.sql.exec(
      `INSERT INTO compactions (turn_id, up_to_seq, summary, summarized, tokens_before, tokens_after, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
      turnId,
      last.seq,
      compaction.summary,
      compaction.totalSummarized,
      compaction.tokensBefore,
      compaction.tokensAfter,
      this.now(),
    );
  }

  /** Which of these client message ids (AG-UI's) the session has taken. One bound value, any count. */
  seenMessageIds(ids: string[]): Set<string> {
    if (ids.length === 0 || !this.exists()) return new Set();
    const rows = this.sql.exec<{ id: string }>(`SELECT id FROM door_message_ids WHERE id IN (SELECT value FROM json_each(?))`, JSON.stringify(ids));
    return new Set(rows.toArray().map((row) => row.id));
  }

  rememberMessageIds(ids: string[]): void {
    if (ids.length === 0) return;
    this.sql.exec(`INSERT OR IGNORE INTO door_message_ids (id) SELECT value FROM json_each(?)`, JSON.stringify(ids));
  }

  /** The session's lasting permission rules, oldest first (read back through their schema). */
  rules(): PermissionRule[] {
    if (!this.exists()) return [];
    return this.sql
      .exec<{ tool_name: string; rule_content: string; behavior: string; source: string }>(`SELECT tool_name, rule_content, behavior, source FROM permission_rules ORDER BY id`)
      .toArray()
      .map((row) => permissionRuleSchema.parse(row));
  }

  addRules(rules: PermissionRule[]): void {
    for (const rule of rules) {
      this.sql.exec(
        `INSERT INTO permission_rules (tool_name, rule_content, behavior, source, created_at) VALUES (?, ?, ?, ?, ?)`,
        rule.tool_name,
        rule.rule_content,
        rule.behavior,
        rule.source,
        this.now(),
      );
    }
  }

  hasToolCallId(id: string): boolean {
    return this.sql.exec(`SELECT 1 FROM tool_call_ids WHERE id = ?`, id).toArray().length > 0;
  }

  calibration(): number {
    return Number(this.meta('token_calibration') ?? 1);
  }

  /** Written only when it moved enough to matter: a row write per model call is not free. */
  setCalibration(value: number): void {
    if (Math.abs(value - this.calibration()) >= 0.02) this.setMeta('token_calibration', String(value));
  }

  page(limit: number, after: number | undefined): { messages: (HistoryMessage | CompactionMarker)[]; next?: string } {
    const rows = this.sql
      .exec<MessageRow>(`SELECT seq, body, parts FROM messages WHERE seq > ? ORDER BY seq LIMIT ?`, after ?? 0, limit + 1)
      .toArray();
    const page = rows.slice(0, limit);
    // Compaction records stand, marked, right after the last message they summarise.
    const markers = new Map(
      this.sql
        .exec<{ up_to_seq: number; summary: string; summarized: number }>(
          `SELECT up_to_seq, summary, summarized FROM compactions WHERE up_to_seq > ? AND up_to_seq <= ?`,
          after ?? 0,
          page.at(-1)?.seq ?? 0,
        )
        .toArray()
        .map((row) => [row.up_to_seq, { role: 'compaction' as const, summary: row.summary, summarizedMessages: row.summarized }]),
    );
    const result: { messages: (HistoryMessage | CompactionMarker)[]; next?: string } = {
      messages: page.flatMap((row) => {
        const marker = markers.get(row.seq);
        return marker ? [this.readMessage(row), marker] : [this.readMessage(row)];
      }),
    };
    const last = page.at(-1);
    if (rows.length > limit && last) result.next = String(last.seq);
    return result;
  }

  /** The calls that wait for the client, in the order the model made them. */
  pendingCalls(): PendingToolCall[] {
    return this.sql
      .exec<{ tool_call_id: string; name: string; input: string; execution: string }>(
        `SELECT tool_call_id, name, input, execution FROM tool_calls WHERE state = 'waiting' ORDER BY result_seq`,
      )
      .toArray()
      .map((row) => ({
        toolCallId: row.tool_call_id,
        name: row.name,
        input: inputSchema.parse(JSON.parse(row.input)),
        awaiting: row.execution === 'client' ? 'client' : 'permission',
      }));
  }

  /** Calls a turn was running when it stopped short (eviction, crash): they get an error result. */
  runningCalls(): { toolCallId: string; name: string }[] {
    return this.sql
      .exec<{ tool_call_id: string; name: string }>(`SELECT tool_call_id, name FROM tool_calls WHERE state = 'running' ORDER BY result_seq`)
      .toArray()
      .map((row) => ({ toolCallId: row.tool_call_id, name: row.name }));
  }

  /** The session's running total of token usage. */
  addUsage(usage: Usage): void {
    this.setMeta('usage', JSON.stringify(addUsage(this.usage(), usage)));
  }

  usage(): Usage {
    const stored = this.meta('usage');
    return stored ? { ...emptyUsage(), ...usageSchema.parse(JSON.parse(stored)) } : emptyUsage();
  }

  summary(): Omit<SessionSummary, 'lastTurn'> {
    const count = this.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM messages`).one().n;
    const title = this.title();
    return {
      ...(title !== undefined ? { title } : {}),
      createdAt: new Date(Number(this.meta('created_at'))).toISOString(),
      updatedAt: new Date(Number(this.meta('updated_at'))).toISOString(),
      messageCount: count,
      pendingToolCalls: this.pendingCalls(),
      usage: this.usage(),
    };
  }

  /** The session's id, as its first turn named it. */
  sessionId(): string | undefined {
    return this.hasTables() ? this.meta('session_id') : undefined;
  }

  title(): string | undefined {
    return this.meta('title');
  }

  setTitle(title: string): void {
    this.setMeta('title', title);
  }

  /** The first messages of the history, for the title (the first exchange). */
  firstMessages(limit: number): HistoryMessage[] {
    return this.sql
      .exec<MessageRow>(`SELECT seq, body, parts FROM messages ORDER BY seq LIMIT ?`, limit)
      .toArray()
      .map((row) => this.readMessage(row));
  }

  // --- notes (memory_save / memory_list) -------------------------------------------------------

  save(text: string): Note {
    const savedAt = this.now();
    const row = this.sql.exec<{ id: number }>(`INSERT INTO notes (text, saved_at) VALUES (?, ?) RETURNING id`, text, savedAt).one();
    return { id: row.id, text, savedAt: new Date(savedAt).toISOString() };
  }

  list(): Note[] {
    return this.sql
      .exec<{ id: number; text: string; saved_at: number }>(`SELECT id, text, saved_at FROM notes ORDER BY id`)
      .toArray()
      .map((row) => ({ id: row.id, text: row.text, savedAt: new Date(row.saved_at).toISOString() }));
  }

  // --- internals -------------------------------------------------------------------------------

  /** A message stored after the kept ones joins them, in seq order (a tool result fills the seq its call reserved). */
  private keepLoaded(seq: number, message: HistoryMessage): void {
    const loaded = this.loaded;
    if (!loaded || seq <= loaded.afterSeq) return;
    let at = loaded.seqs.length;
    while (at > 0 && loaded.seqs[at - 1]! > seq) at--;
    // The same seq again: a write before it rolled back, and this one takes its place.
    const replace = at > 0 && loaded.seqs[at - 1] === seq ? 1 : 0;
    loaded.seqs.splice(at - replace, replace, seq);
    loaded.messages.splice(at - replace, replace, deepFreeze(structuredClone(message)));
  }

  /** A message is stored whole, however long: split over rows when one row cannot hold it. */
  private insertMessage(seq: number, turnId: string, message: HistoryMessage): void {
    this.keepLoaded(seq, message);
    const [first = '', ...rest] = splitForRows(JSON.stringify(message));
    this.sql.exec(
      `INSERT INTO messages (seq, turn_id, role, body, created_at, parts) VALUES (?, ?, ?, ?, ?, ?)`,
      seq,
      turnId,
      message.role,
      first,
      this.now(),
      rest.length + 1,
    );
    for (const [index, data] of rest.entries()) {
      this.sql.exec(`INSERT INTO message_parts (seq, part, data) VALUES (?, ?, ?)`, seq, index + 1, data);
    }
  }

  private readMessage(row: MessageRow): HistoryMessage {
    if (row.parts === 1) return parseMessage(row.body);
    const rest = this.sql
      .exec<{ data: string }>(`SELECT data FROM message_parts WHERE seq = ? ORDER BY part`, row.seq)
      .toArray()
      .map((part) => part.data);
    return parseMessage(row.body + rest.join(''));
  }

  /** Marks the session as changed now. */
  touch(): void {
    this.setMeta('updated_at', String(this.now()));
  }

  private meta(key: string): string | undefined {
    return this.sql.exec<{ value: string }>(`SELECT value FROM meta WHERE key = ?`, key).toArray()[0]?.value;
  }

  private setMeta(key: string, value: string): void {
    this.sql.exec(`INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`, key, value);
  }
}

type MessageRow = { seq: number; body: string; parts: number };
type HistoryShape = { count: number; last: number; total: number };
type LoadedHistory = { afterSeq: number; seqs: number[]; messages: HistoryMessage[] };

/**
 * Whether the kept messages are the stored ones: the same count, last seq and sum of seqs. A write
 * whose transaction rolled back, or one by another hand, makes them differ, and the turn reads again.
 */
function sameShape(loaded: LoadedHistory, stored: HistoryShape): boolean {
  let total = 0;
  for (const seq of loaded.seqs) total += seq;
  return loaded.seqs.length === stored.count && (loaded.seqs.at(-1) ?? 0) === stored.last && total === stored.total;
}

/** Kept messages are shared by every later turn: frozen, so that none can change another's. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

function parseMessage(body: string): HistoryMessage {
  return historyMessageSchema.parse(JSON.parse(body));
}
