/**
 * The history's tables: messages (split over rows when long), the tool calls they open, and the
 * compactions that summarise them; with the parsed messages kept between turns (`LoadedHistory`).
 * Parameterized and synchronous (Durable Object SQLite); append-only: rows are inserted, never
 * updated. JSON read back goes through the zod schemas.
 */
import { historyMessageSchema, type AssistantMessage, type HistoryMessage, type ToolMessage } from '../../api/content';
import type { PendingToolCall, ToolExecution } from '../../agent/events';
import { z } from '../../lib/zod';
import { keepLoaded, loadedIsCurrent, loadHistory, type HistoryShape, type LoadedHistory } from './history-cache';
import { SessionMeta } from './meta';
import { splitForRows } from './row-chunks';

const inputSchema = z.record(z.string(), z.unknown());

export type CompactionRecord = { upToSeq: number; summary: string; summarized: number };

/** How a compaction shows in `GET /sessions/{id}/messages`: marked, after what it summarises. */
export type CompactionMarker = { role: 'compaction'; summary: string; summarizedMessages: number };

export type MessagesPage = { messages: (HistoryMessage | CompactionMarker)[]; next?: string };

export class HistoryStore {
  /**
   * The messages the last turn loaded, parsed, kept for the next: a long-lived session would
   * otherwise read and parse its whole history again on every turn, before the model is even
   * called. Checked against the table on every use, so that it can never serve a stale history.
   */
  private loaded: LoadedHistory | undefined;

  constructor(
    private readonly storage: DurableObjectStorage,
    readonly meta: SessionMeta = new SessionMeta(storage),
  ) {}

  private get sql(): SqlStorage {
    return this.storage.sql;
  }

  /** After `deleteAll`: nothing kept holds any more. */
  forget(): void {
    this.loaded = undefined;
  }

  messageCount(): number {
    return this.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM messages`).one().n;
  }


  appendMessage(turnId: string, message: HistoryMessage): number {
    const seq = this.meta.takeSeqs(1);
    this.insertMessage(seq, turnId, message);
    return seq;
  }


  /** Stores an assistant message and opens a row for each of its tool calls, with its result's seq. */
  appendAssistant(turnId: string, message: AssistantMessage): void {
    this.storage.transactionSync(() => {
      const calls = typeof message.content === 'string' ? [] : message.content.filter((block) => block.type === 'tool_use');
      const seq = this.meta.takeSeqs(1 + calls.length);
      this.insertMessage(seq, turnId, message);
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
    if (!loaded || !loadedIsCurrent(loaded, seq, stored)) {
      const rows = this.sql.exec<MessageRow>(`SELECT seq, body, parts FROM messages WHERE seq > ? ORDER BY seq`, seq).toArray();
      loaded = loadHistory(seq, rows.map((row) => ({ seq: row.seq, message: this.readMessage(row) })));
      this.loaded = loaded;
    }
    return [...loaded.messages];
  }


  latestCompaction(): CompactionRecord | undefined {
    if (!this.meta.exists()) return undefined;
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
      this.meta.now(),
    );
  }


  hasToolCallId(id: string): boolean {
    return this.sql.exec(`SELECT 1 FROM tool_call_ids WHERE id = ?`, id).toArray().length > 0;
  }


  page(limit: number, after: number | undefined): MessagesPage {
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
    const result: MessagesPage = {
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


  /** The first messages of the history, for the title (the first exchange). */
  firstMessages(limit: number): HistoryMessage[] {
    return this.sql
      .exec<MessageRow>(`SELECT seq, body, parts FROM messages ORDER BY seq LIMIT ?`, limit)
      .toArray()
      .map((row) => this.readMessage(row));
  }


  /** A message is stored whole, however long: split over rows when one row cannot hold it. */
  private insertMessage(seq: number, turnId: string, message: HistoryMessage): void {
    if (this.loaded) keepLoaded(this.loaded, seq, message);
    const [first = '', ...rest] = splitForRows(JSON.stringify(message));
    this.sql.exec(
      `INSERT INTO messages (seq, turn_id, role, body, created_at, parts) VALUES (?, ?, ?, ?, ?, ?)`,
      seq,
      turnId,
      message.role,
      first,
      this.meta.now(),
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
}

type MessageRow = { seq: number; body: string; parts: number };

function parseMessage(body: string): HistoryMessage {
  return historyMessageSchema.parse(JSON.parse(body));
}
