import type { AgentEvent, ModelCallUsage } from '../agent/events';
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
  return {
    ...publicUsage(usage),
    calls: modelCalls.map((call) => ({ model: call.model, ...(call.purpose ? { purpose: call.purpose } : {}), ...publicUsage(call.usage) })),
  };
}

export type CompactionReport = Omit<Extract<AgentEvent, { type: 'context-compacted' }>, 'type' | 'summary'>;

/** The turn's compactions, reported on its last event as `compacted` (when there were any). */
export class CompactionLog {
  private readonly reports: CompactionReport[] = [];

  record({ type: _type, summary: _summary, ...report }: Extract<AgentEvent, { type: 'context-compacted' }>): void {
    this.reports.push(report);
  }

  addTo(target: { compacted?: CompactionReport[] }): void {
    if (this.reports.length > 0) target.compacted = this.reports;
  }
}
