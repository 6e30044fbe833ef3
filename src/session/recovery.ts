/**
 * Turns cut short by an eviction or a crash: storage calls them running while no turn runs in
 * memory. Their running tool calls get an error result, their event log gets its last event, and
 * the turn is closed, so the session never stays locked and the history never holds an unanswered
 * call. Run when the object wakes and by its alarm.
 */
import { INTERRUPTED_TEXT } from '../agent/tool-phase';
import { errorStop, FLUSH_EVENTS, logStop, readStoredEvents } from './event-log';
import type { SessionStores } from './store/stores';

/** Closes the cut turns; returns how many there were. */
export function closeCutTurns({ history, meta, turns }: SessionStores): number {
  const cut = turns.runningTurns();
  for (const turn of cut) {
    for (const call of history.runningCalls()) {
      history.appendToolResult(turn.turnId, { role: 'tool', toolCallId: call.toolCallId, content: INTERRUPTED_TEXT, isError: true });
    }
    // Events still buffered died with the old instance, but clients may have seen their ids: the
    // closing event takes an id above any of them, so that a client resuming still receives it.
    const lastSeq = (readStoredEvents(turns, turn.turnId).at(-1)?.seq ?? 0) + FLUSH_EVENTS;
    const error = { code: 'interrupted', message: 'The turn was interrupted by a restart of the server; its running tool calls were closed.' };
    logStop(turns, errorStop(turn.turnId, error, meta.calibration()), lastSeq + 1);
    turns.endTurn(turn.turnId, 'interrupted', 'error', 'interrupted');
  }
  return cut.length;
}
