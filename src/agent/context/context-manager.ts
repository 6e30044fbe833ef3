/**
 * The context of one turn: what the model is sent (the latest summary, then the messages, long tool
 * results shortened), its estimated size, and compaction when it passes the budget. It works on the
 * turn's own message list, removing from its front what a new summary covers.
 */
import type { HistoryMessage } from '../../api/content';
import type { ModelHandle, ToolSpec } from '../../providers/types';
import type { Emit } from '../events';
import type { Usage } from '../usage';
import { chooseCut, summarize, summaryMessage, SUMMARY_SYSTEM_PROMPT, type Summary } from './compaction';
import { contextBudget, type ContextBudget, type ContextSettings } from './context-window';
import { shortenToolResults } from './shorten-tool-results';
import { charsIn, estimateTokens, recalibrate } from './token-estimate';

export type ContextOptions = {
  model: ModelHandle;
  settings: ContextSettings;
  summary: Summary | undefined;
  calibration: number;
  signal: AbortSignal;
  emit: Emit;
  /** Told of each summary call's usage, which the turn counts as its own. */
  onSummaryCall: (usage: Usage) => void;
};

/** What a model call is sent besides the system prompt and the tools, with its estimated size. */
export type Prompt = { messages: HistoryMessage[]; estimatedTokens: number };

export class ContextManager {
  private summary: Summary | undefined;
  private currentCalibration: number;
  readonly budget: ContextBudget;

  constructor(
    private readonly messages: HistoryMessage[],
    private readonly options: ContextOptions,
  ) {
    this.summary = options.summary;
    this.currentCalibration = options.calibration;
    this.budget = contextBudget(options.model.id, options.settings);
  }

  /** What the model is sent: the summary of what came before, then the messages, long tool results shortened. */
  private prompt(): HistoryMessage[] {
    const messages = shortenToolResults(this.messages, this.options.settings.toolResultMaxChars);
    return this.summary ? [summaryMessage(this.summary), ...messages] : messages;
  }

  /** The prompt's estimated size; pass the prompt when it is already built. */
  private estimate(system: string, tools: ToolSpec[], prompt = this.prompt()): number {
    return Math.ceil(estimateTokens(system, prompt, tools) * this.currentCalibration);
  }

  /** Reported input tokens over estimated ones, smoothed: what the session keeps for its next turn. */
  get calibration(): number {
    return this.currentCalibration;
  }

  /** After a call: the provider's count corrects the estimate. */
  observe(estimated: number, reportedInputTokens: number): void {
    this.currentCalibration = recalibrate(this.currentCalibration, estimated / this.currentCalibration, reportedInputTokens);
  }

  /** The prompt as it stands, and its estimated size. */
  prepare(system: string, tools: ToolSpec[]): Prompt {
    const messages = this.prompt();
    return { messages, estimatedTokens: this.estimate(system, tools, messages) };
  }

  /**
   * Before a call: the prompt to send, compacted first past the budget; undefined when even that
   * cannot make it fit. The call sends the prompt measured here: built and estimated once, not again.
   */
  async fit(system: string, tools: ToolSpec[]): Promise<Prompt | undefined> {
    const prompt = this.prepare(system, tools);
    if (prompt.estimatedTokens <= this.budget.limit) return prompt;
    await this.compact(Math.floor(this.budget.limit / 2), 'threshold', system, tools);
    const compacted = this.prepare(system, tools);
    return compacted.estimatedTokens <= this.budget.window - this.budget.reserve ? compacted : undefined;
  }

  /** After an overflow answer: compacts harder, keeping about a quarter of the budget. */
  compactHarder(system: string, tools: ToolSpec[]): Promise<void> {
    return this.compact(Math.floor(this.budget.limit / 4), 'overflow', system, tools);
  }

  /** Summarises the oldest messages so that about `keepTokens` (estimated) of recent ones stay verbatim. */
  private async compact(keepTokens: number, reason: 'threshold' | 'overflow', system: string, tools: ToolSpec[]): Promise<void> {
    const cut = chooseCut(this.messages, keepTokens / this.currentCalibration);
    if (cut <= 0) return;
    const tokensBefore = this.estimate(system, tools);
    // The transcript within the budget, less the instructions: a message longer than the window is shortened.
    const maxChars = charsIn(this.budget.limit / this.currentCalibration) - SUMMARY_SYSTEM_PROMPT.length;
    const result = await summarize(this.options.model, this.summary, this.messages.slice(0, cut), this.options.signal, maxChars);
    this.options.onSummaryCall(result.usage);
    if (!result.ok) {
      console.error('compaction failed', result.error);
      return;
    }
    this.summary = { text: result.text, messages: (this.summary?.messages ?? 0) + cut };
    this.messages.splice(0, cut);
    this.options.emit({
      type: 'context-compacted',
      summary: result.text,
      messagesSummarized: cut,
      totalSummarized: this.summary.messages,
      tokensBefore,
      tokensAfter: this.estimate(system, tools),
      reason,
    });
  }
}
