/**
 * The context of one turn: what the model is sent (the latest summary, then the messages, long tool
 * results shortened), its estimated size, and compaction when it passes the budget. It works on the
 * turn's own message list, removing from its front what a new summary covers.
 */
import type { HistoryMessage } from '../../api/content';
import type { ModelHandle, ToolSpec } from '../../providers/types';
import type { Emit } from '../events';
import type { Usage } from '../usage';
import type { SideCallResult } from '../side-call';
import { chooseCut, summarize, summaryMessage, SUMMARY_SYSTEM_PROMPT, transcript, type Summary } from './compaction';
import { contextBudget, learnWindow, type ContextBudget, type ContextSettings } from './context-window';
import { shortenToolResults } from './shorten-tool-results';
import { charsIn, estimateTokens, MAX_CALIBRATION, recalibrate, tokensIn } from './token-estimate';

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

/** The prompt that overflowed held more than the window by an unknown share: a tenth more, at the least. */
const OVERFLOW_MARGIN = 1.1;

export class ContextManager {
  private summary: Summary | undefined;
  private currentCalibration: number;
  private budget: ContextBudget;

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

  /** The prompt as it stands when it is within the budget (no compaction needed); undefined past it. */
  fitting(system: string, tools: ToolSpec[]): Prompt | undefined {
    const prompt = this.prepare(system, tools);
    return prompt.estimatedTokens <= this.budget.limit ? prompt : undefined;
  }

  /**
   * Before a call: the prompt to send, compacted first past the budget; undefined when even that
   * cannot make it fit. The call sends the prompt measured here: built and estimated once, not again.
   */
  async fit(system: string, tools: ToolSpec[]): Promise<Prompt | undefined> {
    const prompt = this.fitting(system, tools);
    if (prompt) return prompt;
    await this.compact(Math.floor(this.budget.limit / 2), 'threshold', system, tools);
    const compacted = this.prepare(system, tools);
    return compacted.estimatedTokens <= this.budget.window - this.budget.reserve ? compacted : undefined;
  }

  /**
   * After an overflow answer to a prompt estimated at `estimatedTokens`: takes the window the server
   * named (`window`), where it is smaller than the one assumed (a local server started with a small
   * context), measures again (below), then compacts harder, keeping about a quarter of the budget.
   */
  compactHarder(system: string, tools: ToolSpec[], estimatedTokens: number, window?: number): Promise<void> {
    if (window !== undefined && window < this.budget.window) {
      learnWindow(this.options.model.id, window);
      this.budget = contextBudget(this.options.model.id, this.options.settings);
    }
    this.measureAgain(estimatedTokens / this.currentCalibration);
    return this.compact(Math.floor(this.budget.limit / 4), 'overflow', system, tools);
  }

  /**
   * A prompt of `plainTokens` (by the plain reckoning) that the estimate said would fit overflowed, so
   * the rate learnt from earlier counts (another model's, or a server's that reports too few) is too
   * low. It becomes at least what the overflow shows (the window over the plain reckoning) and at
   * least the plain rate: measured with the old one, every summary call would overflow too, and with
   * no call answered to correct it, every later turn of the session would stop `context_full`.
   */
  private measureAgain(plainTokens: number): void {
    this.currentCalibration = Math.min(MAX_CALIBRATION, Math.max(this.currentCalibration, 1, (this.budget.window / plainTokens) * OVERFLOW_MARGIN));
  }

  /** Summarises the oldest messages so that about `keepTokens` (estimated) of recent ones stay verbatim. */
  private async compact(keepTokens: number, reason: 'threshold' | 'overflow', system: string, tools: ToolSpec[]): Promise<void> {
    let summary = await this.summarizeOldest(keepTokens);
    // A summary call measured with a rate too low overflows as an answer can: measured again, once more.
    if (summary && !summary.result.ok && summary.result.error.code === 'context_overflow') {
      this.measureAgain(summary.plainTokens);
      summary = await this.summarizeOldest(keepTokens);
    }
    if (!summary) return;
    const { cut, result } = summary;
    if (!result.ok) {
      console.error('compaction failed', result.error);
      return;
    }
    // Measured only for a compaction made, and before it changes what is sent.
    const tokensBefore = this.estimate(system, tools);
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

  /** The summary call for the oldest messages, those before the cut; undefined when none can be summarised. */
  private async summarizeOldest(keepTokens: number): Promise<{ cut: number; plainTokens: number; result: SideCallResult } | undefined> {
    const cut = chooseCut(this.messages, keepTokens / this.currentCalibration);
    if (cut <= 0) return undefined;
    // The transcript within the budget, less the instructions: a message longer than the window is shortened.
    const maxChars = charsIn(this.budget.limit / this.currentCalibration) - SUMMARY_SYSTEM_PROMPT.length;
    const text = transcript(this.summary, this.messages.slice(0, cut), maxChars);
    const result = await summarize(this.options.model, text, this.options.signal);
    this.options.onSummaryCall(result.usage);
    return { cut, plainTokens: tokensIn(SUMMARY_SYSTEM_PROMPT.length + text.length), result };
  }
}
