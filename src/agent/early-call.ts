/**
 * The first step's model request, sent before the turn tells anything (`TurnDeps.opening`): the
 * host's opening writes, made in a later task, then do not hold it (a Durable Object sends nothing
 * while a write of its own is unconfirmed), and they are confirmed while the model takes its time
 * to a first token (bench/PROFILE.md, "The model asked before the turn is stored").
 */
import type { ToolSpec } from '../providers/types';
import { toolSpecs } from './classify-call';
import type { ContextManager, Prompt } from './context/context-manager';
import { sendCall, type ModelCallOptions, type SentCall } from './model-call';
import type { TurnDeps, TurnInput } from './turn-types';

const FINAL_ANSWER_INSTRUCTION = 'You have used every tool round this turn allows. Do not call tools now: answer the user with what you have.';

/** The first step's call, sent already; `taken` once the step reads it. */
export type FirstCall = { system: string; tools: ToolSpec[]; prompt: Prompt; call: SentCall; taken: boolean };

/** The system prompt of a step; past the tool rounds, with the instruction to answer now. */
export function systemFor(systemPrompt: string, offerTools: boolean): string {
  return offerTools ? systemPrompt : `${systemPrompt}\n\n${FINAL_ANSWER_INSTRUCTION}`;
}

/**
 * The first step's call, sent as the step would send it, when it may go first. The loop asks only
 * when the host waits for it (`opening`) and no answer runs anything first, with the client's results
 * and the new messages in the context's messages already; it goes when the turn is not cancelled, the
 * user may call a model, and the prompt fits without compaction. Undefined otherwise.
 */
export function sendFirstCall(
  input: TurnInput,
  deps: TurnDeps,
  context: ContextManager,
  options: (system: string, tools: ToolSpec[], prompt: Prompt, offerTools: boolean) => ModelCallOptions,
): FirstCall | undefined {
  if (deps.signal.aborted || deps.quota?.()) return undefined;
  try {
    const offerTools = deps.maxIterations >= 1;
    const system = systemFor(deps.systemPrompt, offerTools);
    const tools = toolSpecs(deps.tools, input.clientTools);
    const prompt = context.fitting(system, tools);
    return prompt && { system, tools, prompt, call: sendCall(options(system, tools, prompt, offerTools)), taken: false };
  } catch (cause) {
    // A bug, not a model failure (those are parts): the step makes its call as it would have.
    console.error('sending the first call failed', cause);
    return undefined;
  }
}
