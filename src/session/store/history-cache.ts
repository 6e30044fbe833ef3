/**
 * The parsed messages a session keeps between turns (see `HistoryStore`): checked against the table
 * before each use, frozen because every later turn shares them, and joined by each message stored
 * after them so that the next turn reads nothing again.
 */
import type { HistoryMessage } from '../../api/content';

export type LoadedHistory = { afterSeq: number; seqs: number[]; messages: HistoryMessage[] };
export type HistoryShape = { count: number; last: number; total: number };

export function loadHistory(afterSeq: number, rows: { seq: number; message: HistoryMessage }[]): LoadedHistory {
  return { afterSeq, seqs: rows.map((row) => row.seq), messages: rows.map((row) => deepFreeze(row.message)) };
}

/**
 * Whether the kept messages are the stored ones after `afterSeq`: the same count, last seq and sum
 * of seqs. A write whose transaction rolled back, or one by another hand, makes them differ, and the
 * turn reads again.
 */
export function loadedIsCurrent(loaded: LoadedHistory, afterSeq: number, stored: HistoryShape): boolean {
  if (loaded.afterSeq !== afterSeq) return false;
  let total = 0;
  for (const seq of loaded.seqs) total += seq;
  return loaded.seqs.length === stored.count && (loaded.seqs.at(-1) ?? 0) === stored.last && total === stored.total;
}

/** A message stored after the kept ones joins them, in seq order (a tool result fills the seq its call reserved). */
export function keepLoaded(loaded: LoadedHistory, seq: number, message: HistoryMessage): void {
  if (seq <= loaded.afterSeq) return;
  let at = loaded.seqs.length;
  while (at > 0 && (loaded.seqs[at - 1] ?? 0) > seq) at--;
  // The same seq again: a write before it rolled back, and this one takes its place.
  const replace = at > 0 && loaded.seqs[at - 1] === seq ? 1 : 0;
  loaded.seqs.splice(at - replace, replace, seq);
  loaded.messages.splice(at - replace, replace, deepFreeze(structuredClone(message)));
}

/** Kept messages are shared by every later turn: frozen, so that none can change another's. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
