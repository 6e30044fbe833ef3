/** Token usage of one model call, or summed over a turn. `cachedInputTokens` is part of `inputTokens`. */
export type Usage = {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  reasoningTokens: number;
};

export function emptyUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 };
}

export function addUsage(total: Usage, more: Usage): Usage {
  return {
    inputTokens: total.inputTokens + more.inputTokens,
    outputTokens: total.outputTokens + more.outputTokens,
    cachedInputTokens: total.cachedInputTokens + more.cachedInputTokens,
    reasoningTokens: total.reasoningTokens + more.reasoningTokens,
  };
}
