/**
 * The words a provider answers in, which the agent and the wire formats read: why a model call
 * ended, and what it used. They belong to the providers' floor, the lowest that speaks them.
 */

/**
 * Why a model call ended, as the provider said it (mapped to our words). `paused`: the provider asks
 * to be called again to go on with the same answer (Anthropic's `pause_turn`).
 */
export type FinishReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'refusal' | 'paused';

/**
 * Token usage of one model call, or summed over a turn or a session. `cachedInputTokens` (read from
 * a prompt cache) and `cacheWriteInputTokens` (written to it) are parts of `inputTokens`.
 */
export type Usage = {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  cacheWriteInputTokens: number;
  reasoningTokens: number;
};

export function emptyUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, cacheWriteInputTokens: 0, reasoningTokens: 0 };
}

export function addUsage(total: Usage, more: Usage): Usage {
  return {
    inputTokens: total.inputTokens + more.inputTokens,
    outputTokens: total.outputTokens + more.outputTokens,
    cachedInputTokens: total.cachedInputTokens + more.cachedInputTokens,
    cacheWriteInputTokens: total.cacheWriteInputTokens + more.cacheWriteInputTokens,
    reasoningTokens: total.reasoningTokens + more.reasoningTokens,
  };
}

/** What a model call is for: the conversation's next answer, or a side call's summary or title. */
export type ModelPurpose = 'answer' | 'summary' | 'title';
