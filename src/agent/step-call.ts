/**
 * What a step asks of the model: what it offers (the system prompt and the tools, `stepOffer`) and
 * its call's options (`stepCallOptions`), the same for a step's call made in its turn and for one
 * sent early (`early-call.ts`).
 */
import type { ClientTool } from '../api/turn-request';
import type { ToolSpec } from '../providers/types';
import type { ToolCallIds } from './block-assembler';
import { executionOf, toolSpecs } from './classify-call';
import type { Prompt } from './context/context-manager';
import type { Emit } from './events';
import type { ModelCallOptions } from './model-call';
import type { TurnDeps } from './turn-types';

const FINAL_ANSWER_INSTRUCTION = 'You have used every tool round this turn allows. Do not call tools now: answer the user with what you have.';

/** What a turn gives every call it makes. */
export type TurnCalls = {
  deps: TurnDeps;
  clientTools: ClientTool[];
  emit: Emit;
  usedToolCallIds: ToolCallIds;
  /** One for the turn: what a call learnt (a refusal of earlier images and thinking), its later calls use. */
  earlierParts: { dropped: boolean };
};

/**
 * What a step offers the model: the system prompt (past the tool rounds, with the instruction to
 * answer now) and the tools, which still go past them, uncallable: a history of calls needs them
 * (`ModelRequest`).
 */
export function stepOffer(deps: Pick<TurnDeps, 'systemPrompt' | 'tools'>, clientTools: ClientTool[], offerTools: boolean): { system: string; tools: ToolSpec[] } {
  return { system: offerTools ? deps.systemPrompt : `${deps.systemPrompt}\n\n${FINAL_ANSWER_INSTRUCTION}`, tools: toolSpecs(deps.tools, clientTools) };
}

/** Step `step`'s call, offering `system` and `tools` with `prompt`. */
export function stepCallOptions(turn: TurnCalls, step: number, system: string, tools: ToolSpec[], prompt: Prompt, offerTools: boolean): ModelCallOptions {
  const { deps } = turn;
  return {
    handle: deps.model,
    system,
    messages: prompt.messages,
    tools,
    ...(offerTools ? {} : { toolChoice: 'none' as const }),
    signal: deps.signal,
    emit: turn.emit,
    newId: deps.newId,
    now: deps.now,
    step,
    usedToolCallIds: turn.usedToolCallIds,
    earlierParts: turn.earlierParts,
    retry: deps.retry,
    estimatedInputTokens: prompt.estimatedTokens,
    executionOf: (name: string) => executionOf(name, turn.clientTools, deps.tools),
    ...(deps.sampling ? { sampling: deps.sampling } : {}),
  };
}
