/**
 * Where a turn may continue from (docs/branches.md): `parentId` names a user message, an assistant
 * message without tool calls, or the tool result that completes an assistant message's calls;
 * anything else (a message mid tool exchange, a system message, an id the session never gave) is
 * `400 invalid_parent`. With no new message (regenerate), the parent must be one the model answers.
 */
import type { HistoryMessage } from '../api/content';
import { seqOfMessageId } from '../api/message-ids';
import { ApiError } from '../lib/errors';
import { branchesView, type BranchView } from './history-views';
import type { HistoryStore } from './store/history';

type Place = 'answerable' | 'continuable' | 'mid-exchange' | 'system' | 'missing';

/** The seq a checked `parentId` names (null: a new first message), or a 400. */
export function checkParent(history: HistoryStore, parentId: string | null, regenerate: boolean): number | null {
  if (parentId === null) {
    if (regenerate) throw invalidParent('A turn from the start (parentId null) needs a new message to start with.', parentId);
    return null;
  }
  const seq = seqOfMessageId(parentId);
  const place = placeOf(history, seq);
  if (place === 'missing') throw invalidParent(`No message of this session has the id ${parentId}.`, parentId);
  if (place === 'system') throw invalidParent(`${parentId} is a system message; continue from the message before or after it.`, parentId);
  if (place === 'mid-exchange') {
    throw invalidParent(`${parentId} stands in the middle of a tool exchange; continue from the user message before it, or from the tool result that completes its calls.`, parentId);
  }
  if (place === 'continuable' && regenerate) {
    throw invalidParent(`${parentId} is an answer of the model: send a new message to continue from it, or regenerate from the message it answers.`, parentId);
  }
  return seq;
}

/** Whether a turn (or a fork) may continue from the message `seq`. */
export function isContinuable(history: HistoryStore, seq: number): boolean {
  const place = placeOf(history, seq);
  return place === 'answerable' || place === 'continuable';
}

/** What the message `seq` is, as a place to continue from. */
function placeOf(history: HistoryStore, seq: number): Place {
  const row = history.meta.exists() ? history.messageAt(seq) : undefined;
  if (!row) return 'missing';
  const { message } = row;
  if (message.role === 'user') return 'answerable';
  if (message.role === 'system') return 'system';
  if (message.role === 'assistant') return callCount(message) > 0 ? 'mid-exchange' : 'continuable';
  // A tool result completes its exchange when it is the last of the results its calls reserved (the
  // seqs right after the call), every one of them stored: walk back through them to the call.
  let steps = 0;
  let at: typeof row | undefined = row;
  while (at?.message.role === 'tool') {
    steps++;
    at = at.parentSeq === null ? undefined : history.messageAt(at.parentSeq);
  }
  return at?.message.role === 'assistant' && callCount(at.message) === steps ? 'answerable' : 'mid-exchange';
}

function callCount(message: HistoryMessage): number {
  return typeof message.content === 'string' ? 0 : message.content.filter((block) => block.type === 'tool_use').length;
}

/** Makes the branch that ends at `leafId` the active one (`409` while a turn runs, `404` for an id that is not a leaf). */
export function activateBranch(history: HistoryStore, leafId: string, runningTurnId: string | undefined): BranchView {
  if (runningTurnId !== undefined) {
    throw new ApiError(409, 'session_busy', 'A turn is running in this session; switch branches after it stops.', { details: { runningTurnId } });
  }
  if (!history.branches.activate(seqOfMessageId(leafId))) {
    throw new ApiError(404, 'branch_not_found', `No branch of this session ends at ${leafId} (GET .../branches lists their leafId).`, { details: { leafId } });
  }
  const branch = branchesView(history).branches.find((view) => view.leafId === leafId);
  if (!branch) throw new Error(`The branch of ${leafId} is active but not listed.`);
  return branch;
}

function invalidParent(message: string, parentId: string | null): ApiError {
  return new ApiError(400, 'invalid_parent', message, { details: { parentId } });
}
