/** What a turn loads from the session as it starts, and the record it leaves in the log when it ends. */
import { withoutEarlierParts } from '../agent/earlier-parts';
import type { ResolvedAnswer, TurnInput, TurnOutcome } from '../agent/run-turn';
import { emptyUsage } from '../agent/usage';
import type { TurnRequest } from '../api/turn-request';
import { log as writeLog } from '../lib/log';
import type { SessionStores } from './store/stores';

/** Bounded hydration: the latest summary and what came after it, never the whole history. */
export function turnInput({ history, meta }: SessionStores, turnId: string, answers: ResolvedAnswer[], newMessages: TurnInput['newMessages'], request: TurnRequest): TurnInput {
  // A session's first turn stores its tables after its first model request (turn-opening.ts): nothing to read yet.
  const stored = meta.exists();
  const compaction = stored ? history.compactions.latest() : undefined;
  const loaded = stored ? history.historyAfter(compaction?.upToSeq ?? 0) : [];
  // What a provider refused once goes without its images and thinking from the start (agent/earlier-parts.ts).
  const refusedBefore = meta.partsRefusedBefore();
  return {
    turnId,
    history: (refusedBefore > 0 && withoutEarlierParts(loaded, history.loadedBefore(refusedBefore))) || loaded,
    // The kept messages' call ids: those of the history above, and of what the turn stores meanwhile.
    historyCallIds: () => history.historyCallIds(),
    context: {
      calibration: meta.calibration(),
      ...(compaction ? { summary: { text: compaction.summary, messages: compaction.summarized } } : {}),
    },
    answers,
    newMessages,
    clientTools: request.tools ?? [],
  };
}

/** The turn's record in the structured log: who, which model, how it ended, what it used, how long. */
export function logTurn(who: { session: string; turn: string; user: string; model: string }, outcome: TurnOutcome | undefined, started: number): void {
  const errorCode = outcome ? outcome.error?.code : 'internal_error';
  writeLog({
    kind: 'turn',
    ...who,
    stopReason: outcome?.stopReason ?? 'error',
    ...(errorCode ? { errorCode } : {}),
    latencyMs: Date.now() - started,
    usage: outcome?.usage ?? emptyUsage(),
    modelCalls: outcome?.modelCalls.length ?? 0,
  });
}
