/**
 * The history as the API shows it (docs/branches.md): each message with its id, its parent's, and,
 * where it has siblings, theirs (every child of its parent, oldest first, itself included: what a
 * front end draws as "2 / 3"); a page of a branch; the session's branches; a turn's new messages.
 */
import type { HistoryMessage } from '../api/content';
import { messageId, seqOfMessageId } from '../api/message-ids';
import type { MessagesQuery } from '../api/messages-query';
import { ApiError } from '../lib/errors';
import type { CompactionMarker } from './store/compactions';
import type { HistoryStore, StoredRow } from './store/history';

export type IdentifiedMessage = HistoryMessage & { id: string; parentId?: string; siblingIds?: string[] };
export type MessagesPage = { messages: (IdentifiedMessage | CompactionMarker)[]; next?: string };
export type BranchView = { leafId: string; active: boolean; messageCount: number; updatedAt: string; forkPointId?: string };

/** Rows of the history with their ids; the siblings are read once per parent that has any. */
export function identify(history: HistoryStore, rows: StoredRow[]): IdentifiedMessage[] {
  const forkPoints = rows.length > 0 ? history.branches.forkPoints() : new Set<number | null>();
  const children = new Map<number | null, number[]>();
  return rows.map((row) => {
    let siblings: number[] | undefined;
    if (forkPoints.has(row.parentSeq)) {
      siblings = children.get(row.parentSeq);
      if (!siblings) children.set(row.parentSeq, (siblings = history.branches.children(row.parentSeq)));
    }
    return {
      id: messageId(row.seq),
      ...(row.parentSeq !== null ? { parentId: messageId(row.parentSeq) } : {}),
      ...(siblings && siblings.length > 1 ? { siblingIds: siblings.map(messageId) } : {}),
      ...row.message,
    };
  });
}

/** A page of the branch that ends at `leaf` (default: the active one), compactions marked after what they summarise. */
export function messagesPage(history: HistoryStore, { limit, cursor: after, leaf }: MessagesQuery): MessagesPage {
  const leafSeq = leaf === undefined ? undefined : seqOfMessageId(leaf);
  if (leafSeq !== undefined && !history.messageAt(leafSeq)) throw new ApiError(404, 'message_not_found', `This session has no message ${leaf}.`, { details: { leaf } });
  const path = leafSeq === undefined ? history.branches.head() : history.branches.pathTo(leafSeq);
  const rows = history.rowsOn(path, after ?? 0, limit + 1);
  const page = rows.slice(0, limit);
  const markers = history.compactions.markersOn(path, after ?? 0, page.at(-1)?.seq ?? 0);
  const messages = identify(history, page).flatMap((message, index) => {
    const marker = markers.get(page[index]?.seq ?? 0);
    return marker ? [message, marker] : [message];
  });
  const last = page.at(-1);
  return rows.length > limit && last ? { messages, next: String(last.seq) } : { messages };
}

export function branchesView(history: HistoryStore): { branches: BranchView[] } {
  return {
    branches: history.branches.list().map((branch) => ({
      leafId: messageId(branch.leafSeq),
      active: branch.active,
      messageCount: branch.messageCount,
      updatedAt: new Date(branch.updatedAt).toISOString(),
      ...(branch.forkSeq !== undefined ? { forkPointId: messageId(branch.forkSeq) } : {}),
    })),
  };
}

/**
 * The messages of a turn's `stream: "none"` answer with their ids: its assistant messages in order,
 * its tool results by their call, among what the turn stored.
 */
export function identifyTurnMessages<M extends HistoryMessage>(history: HistoryStore, turnId: string, messages: M[]): M[] {
  const rows = history.turnRows(turnId);
  const identified = identify(history, rows);
  const assistants = identified.filter((message) => message.role === 'assistant');
  const results = new Map(identified.flatMap((message) => (message.role === 'tool' ? [[message.toolCallId, message] as const] : [])));
  let next = 0;
  return messages.map((message) => {
    const stored = message.role === 'tool' ? results.get(message.toolCallId) : message.role === 'assistant' ? assistants[next++] : undefined;
    // A message the store did not take (its write failed) goes out as it is.
    return stored ? { id: stored.id, ...(stored.parentId ? { parentId: stored.parentId } : {}), ...(stored.siblingIds ? { siblingIds: stored.siblingIds } : {}), ...message } : message;
  });
}
