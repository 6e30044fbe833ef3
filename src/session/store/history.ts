/**
 * The history's tables: messages (split over rows when long), the tool calls they open, and the
 * compactions that summarise them; with the parsed messages kept between turns (`LoadedHistory`).
 * History is a tree (`branches.ts`): every read takes a path, by default the active branch, and each
 * message is stored with its segment and parent. Parameterized and synchronous (Durable Object
 * SQLite); append-only: rows are inserted, never updated. JSON read back goes through the zod schemas.
 */
import { historyMessageSchema, type AssistantMessage, type HistoryMessage, type ToolMessage } from '../../api/content';
import type { PendingToolCall, ToolExecution } from '../../agent/events';
import { callIdsOf } from '../../agent/history';
import * as z from '../../lib/zod';
import { BranchStore, pathKey, type Place, type Range } from './branches';
import { CompactionStore } from './compactions';
import { keepLoaded, loadHistory, parsedOnce, type LoadedHistory } from './history-cache';
import { SessionMeta } from './meta';
import { splitForRows } from './row-chunks';

const inputSchema = z.record(z.string(), z.unknown());

/** A stored message as a read of the tree gives it: where it stands, and itself. */
export type StoredRow = { seq: number; parentSeq: number | null; message: HistoryMessage };

/**
 * The messages the last turn loaded, parsed, kept for the next: a long-lived session would otherwise
 * read and parse its whole history again on every turn, before the model is even called. Kept per
 * storage, as `branches.ts` keeps its count, so that a message any store over it adds joins them;
 * dropped when a transaction rolls back (`SessionMeta.transaction`, which every write of a session
 * goes through) and after a `deleteAll` (`forget`). Checking them against the table instead, by
 * count and sum of seqs, read every message of the path at every turn (bench/PROFILE.md, "The kept
 * messages trusted").
 */
const keptOf = new WeakMap<DurableObjectStorage, LoadedHistory>();

export class HistoryStore {
  /** What the last turns stored, by turn, in order: the JSON answer of a turn names its messages. */
  private readonly recent = new Map<string, StoredRow[]>();

  readonly branches: BranchStore;
  readonly compactions: CompactionStore;

  constructor(
    private readonly storage: DurableObjectStorage,
    readonly meta: SessionMeta = new SessionMeta(storage),
  ) {
    this.branches = new BranchStore(storage, meta);
    this.compactions = new CompactionStore(storage, meta, this.branches);
    // A rolled back write may have joined the kept messages, and what the turns stored.
    meta.onRollback(() => {
      keptOf.delete(storage);
      this.recent.clear();
    });
  }

  private get sql(): SqlStorage {
    return this.storage.sql;
  }

  /** After `deleteAll`: nothing kept holds any more. */
  forget(): void {
    keptOf.delete(this.storage);
    this.recent.clear();
    this.branches.forget();
  }

  /** A turn starts, from the active leaf or (`parent`, a seq or null for a new first message) from another message. */
  beginTurn(parent: number | null | undefined): void {
    this.branches.settle();
    if (parent !== undefined) this.branches.continueFrom(parent);
  }

  /** The messages a turn stored, in order (read back when the turn is not among the last few). */
  turnRows(turnId: string): StoredRow[] {
    const kept = this.recent.get(turnId);
    if (kept) return kept;
    return Array.from(this.sql.exec(`SELECT ${MESSAGE_COLUMNS} FROM messages WHERE turn_id = ? ORDER BY seq`, turnId).raw<MessageRow>(), (row) => this.stored(row));
  }

  /** The message `seq`, where it stands and what it is. */
  messageAt(seq: number): (StoredRow & { branch: number }) | undefined {
    // Read to its end (`Array.from`), so that no statement stays open on the table.
    const [row] = Array.from(this.sql.exec(`SELECT ${MESSAGE_COLUMNS}, branch FROM messages WHERE seq = ?`, seq).raw<[...MessageRow, number]>());
    return row && { ...this.stored(row), branch: row[4] };
  }

  /** The messages on the active branch. */
  messageCount(): number {
    return this.branches.count(this.branches.head());
  }

  appendMessage(turnId: string, message: HistoryMessage): number {
    const seq = this.nextSeq();
    this.insertMessage(seq, turnId, message, this.branches.place());
    return seq;
  }

  /** A message a fork copies: after the last, its tool calls' ids taken as if it had made them. */
  copyMessage(message: HistoryMessage): number {
    const seq = this.appendMessage('fork', message);
    const calls = message.role === 'assistant' && typeof message.content !== 'string' ? message.content.filter((block) => block.type === 'tool_use') : [];
    if (calls.length > 0) this.meta.ensure('tool_calls');
    for (const call of calls) this.sql.exec(`INSERT OR IGNORE INTO tool_call_ids (id) VALUES (?)`, call.toolCallId);
    return seq;
  }

  /** Stores an assistant message and opens a row for each of its tool calls, with its result's seq. */
  appendAssistant(turnId: string, message: AssistantMessage): void {
    this.meta.transaction(() => {
      const calls = typeof message.content === 'string' ? [] : message.content.filter((block) => block.type === 'tool_use');
      // Its calls' results will take the seqs after it: held by their rows in `tool_calls` until stored.
      const seq = this.nextSeq();
      const place = this.branches.place();
      this.insertMessage(seq, turnId, message, place);
      if (calls.length > 0) this.meta.ensure('tool_calls');
      for (const [index, call] of calls.entries()) {
        this.sql.exec(`INSERT OR IGNORE INTO tool_call_ids (id) VALUES (?)`, call.toolCallId);
        this.sql.exec(
          `INSERT INTO tool_calls (tool_call_id, result_seq, name, input, execution, state, branch) VALUES (?, ?, ?, ?, 'trusted', 'running', ?)`,
          call.toolCallId,
          seq + 1 + index,
          call.name,
          JSON.stringify(call.input),
          place.branch,
        );
      }
    });
  }

  /** Stores a tool result at the seq its call reserved (after the one before it), and closes the call. */
  appendToolResult(turnId: string, message: ToolMessage): void {
    this.meta.transaction(() => {
      const row = this.meta.has('tool_calls')
        ? this.sql.exec<{ result_seq: number; branch: number }>(`SELECT result_seq, branch FROM tool_calls WHERE tool_call_id = ?`, message.toolCallId).toArray()[0]
        : undefined;
      if (!row) throw new Error(`No open tool call ${message.toolCallId} to store a result for.`);
      this.insertMessage(row.result_seq, turnId, message, { branch: row.branch, parent: row.result_seq - 1 });
      this.sql.exec(`DELETE FROM tool_calls WHERE tool_call_id = ?`, message.toolCallId);
    });
  }

  setCallState(toolCallId: string, execution: ToolExecution, state: 'running' | 'waiting'): void {
    if (this.meta.has('tool_calls')) this.sql.exec(`UPDATE tool_calls SET execution = ?, state = ? WHERE tool_call_id = ?`, execution, state, toolCallId);
  }

  /** The messages of the branch turns read after `seq`, in order: what a turn loads after the latest compaction. */
  historyAfter(seq: number): HistoryMessage[] {
    const path = this.branches.head();
    const key = pathKey(path);
    let loaded = keptOf.get(this.storage);
    if (loaded?.key !== key || loaded.afterSeq !== seq) {
      loaded = loadHistory(path, seq, this.rowsOn(path, seq, Infinity, keptMessage));
      keptOf.set(this.storage, loaded);
    }
    return [...loaded.messages];
  }

  /** The tool call ids of the kept messages (undefined once dropped), gathered once and then kept with them (`keepLoaded`). */
  historyCallIds(): ReadonlySet<string> | undefined {
    const loaded = keptOf.get(this.storage);
    return loaded && (loaded.callIds ??= callIdsOf(loaded.messages));
  }

  /** Of the messages `historyAfter` gave, how many come before seq `seq`. */
  loadedBefore(seq: number): number {
    const seqs = keptOf.get(this.storage)?.seqs ?? [];
    const at = seqs.findIndex((stored) => stored >= seq);
    return at < 0 ? seqs.length : at;
  }

  /** The seq of the last user message among the kept ones, as the turn left them (undefined when none are kept). */
  lastUserSeq(): number | undefined {
    const loaded = keptOf.get(this.storage);
    const at = loaded ? loaded.messages.findLastIndex((message) => message.role === 'user') : -1;
    return at < 0 ? undefined : loaded!.seqs[at];
  }

  hasToolCallId(id: string): boolean {
    return this.meta.has('tool_calls') && this.sql.exec(`SELECT 1 FROM tool_call_ids WHERE id = ?`, id).toArray().length > 0;
  }

  /**
   * The calls that wait for the client on the branch turns read, in the order the model made them.
   * They end their segment (nothing is stored after calls still owed), so a branch that forked
   * before them does not owe them, and they are owed again when their branch is active again.
   */
  pendingCalls(): PendingToolCall[] {
    if (!this.meta.has('tool_calls')) return [];
    const last = this.branches.head().at(-1);
    if (!last) return [];
    return this.sql
      .exec<{ tool_call_id: string; name: string; input: string; execution: string }>(
        `SELECT tool_call_id, name, input, execution FROM tool_calls WHERE state = 'waiting' AND branch = ? AND result_seq <= ? ORDER BY result_seq`,
        last.branch,
        last.upTo,
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
    if (!this.meta.has('tool_calls')) return [];
    return this.sql
      .exec<{ tool_call_id: string; name: string }>(`SELECT tool_call_id, name FROM tool_calls WHERE state = 'running' ORDER BY result_seq`)
      .toArray()
      .map((row) => ({ toolCallId: row.tool_call_id, name: row.name }));
  }

  /** The first messages of the active branch, for the title (the first exchange). */
  firstMessages(limit: number): HistoryMessage[] {
    return this.rowsOn(this.branches.head(), 0, limit).map((row) => row.message);
  }

  /** The messages of `path` after `after`, in order (at most `limit`): each segment by its index, each message made by `parse`. */
  rowsOn(path: Range[], after: number, limit = Infinity, parse = parseMessage): StoredRow[] {
    return this.branches.rowsAlong<MessageRow>(path, after, limit, MESSAGE_COLUMNS).map((row) => this.stored(row, parse));
  }

  /** Every message of every branch after seq `after`, in seq order, at most `limit` (an export reads them all). */
  allRows(after: number, limit: number): (StoredRow & { createdAt: number })[] {
    const rows = this.sql.exec(`SELECT ${MESSAGE_COLUMNS}, created_at FROM messages WHERE seq > ? ORDER BY seq LIMIT ?`, after, limit).raw<[...MessageRow, number]>();
    return Array.from(rows, (row) => ({ ...this.stored(row), createdAt: row[4] }));
  }

  /**
   * The seq a new message takes: after every message stored and every seq an open tool call holds
   * for its result. Messages are never deleted but with the whole session, so the table itself says
   * which seqs are taken; a counter in `meta` said it again with two more rows written a turn
   * (decision 42).
   */
  private nextSeq(): number {
    const stored = this.sql.exec<{ seq: number | null }>(`SELECT MAX(seq) AS seq FROM messages`).one().seq ?? 0;
    const held = this.meta.has('tool_calls') ? (this.sql.exec<{ seq: number | null }>(`SELECT MAX(result_seq) AS seq FROM tool_calls`).one().seq ?? 0) : 0;
    return Math.max(stored, held) + 1;
  }

  /** A message is stored whole, however long: split over rows when one row cannot hold it. */
  private insertMessage(seq: number, turnId: string, message: HistoryMessage, place: Place): void {
    const [first = '', ...rest] = splitForRows(JSON.stringify(message));
    this.sql.exec(
      `INSERT INTO messages (seq, turn_id, role, body, created_at, parts, branch, parent_seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      seq,
      turnId,
      message.role,
      first,
      this.meta.now(),
      rest.length + 1,
      place.branch,
      place.parent,
    );
    this.branches.added(place.branch, seq);
    if (rest.length > 0) this.meta.ensure('message_parts');
    for (const [index, data] of rest.entries()) {
      this.sql.exec(`INSERT INTO message_parts (seq, part, data) VALUES (?, ?, ?)`, seq, index + 1, data);
    }
    // Once stored: a write that throws leaves what is kept as the table is.
    this.remember(turnId, { seq, parentSeq: place.parent, message });
    const kept = keptOf.get(this.storage);
    if (kept && !keepLoaded(kept, seq, message, place, () => this.branches.head())) keptOf.delete(this.storage);
  }

  private remember(turnId: string, row: StoredRow): void {
    let rows = this.recent.get(turnId);
    if (!rows) {
      const oldest = this.recent.keys().next();
      if (this.recent.size >= RECENT_TURNS && !oldest.done) this.recent.delete(oldest.value);
      this.recent.set(turnId, (rows = []));
    }
    // In seq order: a tool result fills the seq its call reserved. A seq is remembered once (stored
    // once; a rollback forgets what its transaction stored).
    rows.splice(rows.findLastIndex((kept) => kept.seq < row.seq) + 1, 0, row);
  }

  /** A message row as read (`MESSAGE_COLUMNS`), its message made by `parse`, its parts joined first if it has more than one. */
  private stored([seq, parentSeq, body, parts]: readonly [...MessageRow, ...SqlStorageValue[]], parse = parseMessage): StoredRow {
    if (parts === 1) return { seq, parentSeq, message: parse(body) };
    const rest = Array.from(this.sql.exec(`SELECT data FROM message_parts WHERE seq = ? ORDER BY part`, seq).raw<[string]>(), ([data]) => data);
    return { seq, parentSeq, message: parse(body + rest.join('')) };
  }
}

const RECENT_TURNS = 8;

/** The columns every read of messages selects, first, in this order: read raw, as arrays (bench/PROFILE.md, "A woken session's rows read raw"). */
const MESSAGE_COLUMNS = 'seq, parent_seq, body, parts';
type MessageRow = [seq: number, parentSeq: number | null, body: string, parts: number];

function parseMessage(body: string): HistoryMessage {
  return historyMessageSchema().parse(JSON.parse(body));
}

/** A message the session keeps between turns: parsed once for the isolate (`parsedOnce`). */
const keptMessage = (body: string): HistoryMessage => parsedOnce(body, parseMessage);
