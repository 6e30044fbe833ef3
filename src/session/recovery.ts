/**
 * Turns cut short by an eviction or a crash: storage calls them running while no turn runs in
 * memory. Their running tool calls get an error result, their event log gets its last event, and
 * the turn is closed, so the session never stays locked and the history never holds an unanswered
 * call. Run when the object wakes and by its alarm.
 */
import { INTERRUPTED_TEXT } from '../agent/tool-phase';
import { errorStop, FLUSH_EVENTS, logStop, readStoredEvents } from './event-log';
import type { TurnError } from '../agent/events';
import type { SessionStores } from './store/stores';

const INTERRUPTED: TurnError = { code: 'interrupted', message: 'The turn was interrupted by a restart of the server; its running tool calls were closed.' };

/** Closes the cut turns; returns them, with the error each ended with. */
export function closeCutTurns({ history, meta, turns }: SessionStores): { turnId: string; error: TurnError }[] {
  const cut = turns.runningTurns();
  for (const turn of cut) {
    for (const call of history.runningCalls()) {
      history.appendToolResult(turn.turnId, { role: 'tool', toolCallId: call.toolCallId, content: INTERRUPTED_TEXT, isError: true });
    }
    // Events still buffered died with the old instance, but clients may have seen their ids: the
    // closing event takes an id above any of them, so that a client resuming still receives it.
    const lastSeq = (readStoredEvents(turns, turn.turnId).at(-1)?.seq ?? 0) + FLUSH_EVENTS;
    const stop = errorStop(turn.turnId, INTERRUPTED, meta.calibration());
    logStop(turns, stop, lastSeq + 1);
    turns.endTurn(turn.turnId, 'interrupted', 'error', 'interrupted', stop.at);
  }
  return cut.map((turn) => ({ turnId: turn.turnId, error: INTERRUPTED }));
}
