import type { ModelCallUsage } from '../agent/events';
import type { Usage } from '../agent/usage';

/** Usage as the turns API shows it (an extra field on `turn_stop` and in the JSON body). */
export function publicUsage(usage: Usage) {
  return {
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    cachedInputTokens: usage.cachedInputTokens,
    cacheWriteInputTokens: usage.cacheWriteInputTokens,
    reasoningTokens: usage.reasoningTokens,
  };
}

/** A turn's usage: the sum, and each model call's own (`calls`). */
export function turnUsage(usage: Usage, modelCalls: ModelCallUsage[]) {
  return { ...publicUsage(usage), calls: modelCalls.map((call) => ({ model: call.model, ...publicUsage(call.usage) })) };
}
