/**
 * A step's model request, sent before the loop tells what comes before it: the first step's before
 * the host's opening (`TurnDeps.opening`), a later step's before the events of the step that ran its
 * tools (`TurnDeps.requestSent`, `held-events.ts`). The host's writes for those, made in a later task,
 * then do not hold it (a Durable Object sends nothing while a write of its own is unconfirmed), and
 * they are confirmed while the model takes its time to a first token (docs/decisions.md, 43 and 44).
 */
import type { ToolSpec } from '../providers/types';
import type { ContextManager, Prompt } from './context/context-manager';
import { sendCall, type SentCall } from './model-call';
import { stepCallOptions, stepOffer, type TurnCalls } from './step-call';

/** A step's call, sent already; `taken` once the step reads it. */
export type EarlyCall = { system: string; tools: ToolSpec[]; prompt: Prompt; call: SentCall; taken: boolean };

/**
 * Step `step`'s call, sent as the step would send it, when it may go early. The loop asks only when
 * the host waits for it, with the step's messages in the context's messages already, and checks the
 * token budget itself; the call goes when the turn is not cancelled, the user may call a model, and
 * the prompt fits without compaction. Undefined otherwise: the step then checks and calls as it would have.
 */
export function sendEarlyCall(step: number, turn: TurnCalls, context: ContextManager): EarlyCall | undefined {
  const { deps } = turn;
  if (deps.signal.aborted || deps.quota?.()) return undefined;
  try {
    const offerTools = step <= deps.maxIterations;
    const { system, tools } = stepOffer(deps, turn.clientTools, offerTools);
    const prompt = context.fitting(system, tools);
    return prompt && { system, tools, prompt, call: sendCall(stepCallOptions(turn, step, system, tools, prompt, offerTools)), taken: false };
  } catch (cause) {
    // A bug, not a model failure (those are parts): the step makes its call as it would have.
    console.error('sending a call early failed', cause);
    return undefined;
  }
}
