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
