/**
 * The agent loop, platform-free: answers to pending calls first, then the new messages, then steps
 * (one model call and the tools it asks for) until the model stops, a call needs the client, or the
 * iteration bound is reached. Everything it does is told through `emit`; persistence and every wire
 * format listen there. Once it told its start it never throws: every ending is one `turn-stop`; the
 * host's opening failing (`TurnDeps.opening`) ends it before, with no event.
 */
import type { HistoryMessage, UserMessage } from '../api/content';
import type { ToolSpec } from '../providers/types';
import type { AgentEvent, Emit, ModelCallUsage, StopReason, TurnError } from './events';
import { assistantMessage, placeToolResult, toolResult, usedToolCallIds } from './history';
import type { AssembledToolCall } from './block-assembler';
import { callModel, type SentCall } from './model-call';
import { sendEarlyCall, type EarlyCall } from './early-call';
import { stepCallOptions, stepOffer, type TurnCalls } from './step-call';
import { HeldEvents } from './held-events';
import { ContextManager, type Prompt } from './context/context-manager';
import { INTERRUPTED_TEXT } from './tool-phase';
import { takeAnswers, takeToolCalls, type ToolStepTurn } from './tool-step';
import type { TurnDeps, TurnInput, TurnOutcome } from './turn-types';
import { addUsage, emptyUsage } from './usage';

export type { ResolvedAnswer, TurnDeps, TurnInput, TurnOutcome } from './turn-types';

export async function runTurn(input: TurnInput, deps: TurnDeps): Promise<TurnOutcome> {
  return new Turn(input, deps).run();
}

class Turn {
  private readonly messages: HistoryMessage[];
  /** Calls of the current assistant message that have no result yet: closed on any abnormal end. */
  private readonly open = new Map<string, { name: string; input: Record<string, unknown> }>();
  /** What every call of the turn is given (`step-call.ts`). */
  private readonly calls: TurnCalls;
  private usage = emptyUsage();
  private readonly modelCalls: ModelCallUsage[] = [];
  private readonly context: ContextManager;
  private maxIterationsReached = false;
  /** The client's results and the new messages are in `messages` already (put there for a first call sent early). */
  private placedEarly = false;
  /** The call sent ahead of its step (`early-call.ts`), let go if the step never reads it. */
  private early: EarlyCall | undefined;
  /** What a step that runs tools tells, held for the next step's request to go first (`held-events.ts`). */
  private readonly held: HeldEvents;

  constructor(
    private readonly input: TurnInput,
    private readonly deps: TurnDeps,
  ) {
    this.messages = [...input.history];
    this.held = new HeldEvents(deps.emit);
    this.context = new ContextManager(this.messages, {
      model: deps.model,
      settings: deps.context,
      summary: input.context.summary,
      calibration: input.context.calibration,
      signal: deps.signal,
      emit: (event) => this.emit(event),
      onSummaryCall: (usage) => this.spent({ model: deps.model.id, usage, purpose: 'compaction' }),
    });
    this.calls = { deps, clientTools: input.clientTools, emit: this.emit, usedToolCallIds: usedToolCallIds(input.history, deps.isToolCallIdUsed, input.historyCallIds), earlierParts: { dropped: false } };
  }

  private emit: Emit = (event: AgentEvent) => {
    if (event.type === 'tool-execution-end' || (event.type === 'tool-answer' && event.answer.kind === 'result')) this.open.delete(event.toolCallId);
    if (this.held.holding) this.held.push(event);
    else this.deps.emit(event);
  };

  async run(): Promise<TurnOutcome> {
    // The first model request goes before the host's opening writes, where it can: they would hold it.
    this.early = this.sendFirst();
    if (this.deps.opening) await this.deps.opening(this.early !== undefined).catch((error: unknown) => (this.early?.call.close(), Promise.reject(error)));
    this.emit({ type: 'turn-start', turnId: this.input.turnId, model: this.deps.model.id, at: this.deps.now() });
    let outcome: TurnOutcome;
    try {
      // Phase 1: the answers to the calls the previous turn left pending, in call order.
      await takeAnswers(this.input.answers, this.toolStep(), this.placedEarly);
      this.appendNewMessages();
      outcome = this.deps.signal.aborted ? this.cancelled() : await this.runSteps();
    } catch (cause) {
      // A bug, not a model or tool failure (those are values): end the turn cleanly all the same.
      console.error('turn failed', this.input.turnId, cause);
      outcome = this.stop('error', { code: 'internal_error', message: 'The server failed during the turn.' });
    }
    this.letEarlyGo();
    this.held.release();
    if (outcome.stopReason === 'error') this.closeOpenCalls();
    this.emit({ type: 'turn-stop', turnId: this.input.turnId, ...outcome, at: this.deps.now(), calibration: this.context.calibration, ...(this.calls.earlierParts.dropped && { earlierPartsLeftOut: true }) });
    return outcome;
  }

  // Phase 2: the request's own user and system messages.
  private appendNewMessages(): void {
    for (const message of this.input.newMessages) {
      this.emit({ type: 'input-message', message });
      if (!this.placedEarly) this.messages.push(message);
    }
  }

  /** The first step's request, sent before the turn tells anything where it may (`early-call.ts`); the client's results and the new messages go in first, where phases 1 and 2 put them. */
  private sendFirst(): EarlyCall | undefined {
    if (!this.deps.opening || this.input.answers.some(({ answer }) => answer.kind !== 'result')) return undefined;
    for (const { call, answer } of this.input.answers) if (answer.kind === 'result') placeToolResult(this.messages, toolResult(call.toolCallId, answer));
    this.messages.push(...this.input.newMessages);
    this.placedEarly = true;
    return this.sendEarly(1);
  }

  private sendEarly(step: number): EarlyCall | undefined {
    return sendEarlyCall(step, this.calls, this.context);
  }

  // Phase 3: steps until a stop.
  private async runSteps(): Promise<TurnOutcome> {
    for (let step = 1; ; step++) {
      const stop = this.deps.signal.aborted ? this.cancelled() : this.budgetSpent(step);
      if (stop) return stop;
      const offerTools = step <= this.deps.maxIterations;
      if (!offerTools) {
        this.maxIterationsReached = true;
        this.emit({ type: 'iteration-limit', maxIterations: this.deps.maxIterations, step });
      }
      this.emit({ type: 'step-start', step });
      const outcome = await this.runStep(step, offerTools, this.early);
      this.letEarlyGo();
      if (!outcome && this.held.holding) {
        await this.sendNext(step + 1);
        continue;
      }
      this.held.release();
      this.emit({ type: 'step-end', step });
      // Messages steered in while the step ran join the turn here, after its tool results; an answer
      // that would have ended the turn gets one more model call for them. Any other ending leaves
      // them to the session (they become a turn of their own).
      if ((!outcome || outcome.stopReason === 'end_turn') && this.tellSteered(this.takeSteered())) continue;
      if (outcome) return outcome;
    }
  }

  /** A spent budget stops the turn between steps: the history is whole, and the next request goes on. */
  private budgetSpent(step: number): TurnOutcome | undefined {
    const spent = this.usage.inputTokens + this.usage.outputTokens;
    if (step === 1 || this.deps.tokenBudget === undefined || spent < this.deps.tokenBudget) return undefined;
    return this.stop('max_tokens', { code: 'budget_spent', message: `The turn spent its token budget (${spent} of ${this.deps.tokenBudget} tokens); send the next request to go on.` });
  }

  /**
   * After a step that ran its tools, with what it told held: the next request (with any steered
   * messages) goes first where it may, then, a task later (`requestSent`), what was held, the step's
   * end and the steered messages are told as the loop tells them when nothing is held.
   */
  private async sendNext(step: number): Promise<void> {
    const held = this.held.take();
    const steered = this.takeSteered();
    this.early = this.budgetSpent(step) ? undefined : this.sendEarly(step);
    if (this.early) await this.deps.requestSent?.();
    for (const event of held) this.deps.emit(event);
    this.emit({ type: 'step-end', step: step - 1 });
    this.tellSteered(steered);
  }

  /** The call sent ahead of a step that did not read it (a cancel, a failure) is let go. */
  private letEarlyGo(): void {
    if (this.early && !this.early.taken) this.early.call.close();
    this.early = undefined;
  }

  /** What was steered in, into the prompt; told (`tellSteered`) at once, or once the request that carries it is on its way. */
  private takeSteered(): UserMessage[] {
    const steered = this.deps.steering?.take() ?? [];
    this.messages.push(...steered);
    return steered;
  }

  private tellSteered(steered: UserMessage[]): boolean {
    if (steered.length > 0) this.deps.steering?.told();
    for (const message of steered) this.emit({ type: 'input-message', message });
    return steered.length > 0;
  }

  /** One model call and its tools; returns the turn's outcome when the turn ends here. `early`: its call, sent already. */
  private async runStep(step: number, offerTools: boolean, early?: EarlyCall): Promise<TurnOutcome | undefined> {
    const { system, tools } = early ?? stepOffer(this.deps, this.input.clientTools, offerTools);
    // A user over a daily quota calls no model (a summary included): the turn keeps its work and stops.
    const quota = early ? undefined : this.deps.quota?.();
    if (quota) return this.stop('max_tokens', quota);
    const prompt = early?.prompt ?? (await this.context.fit(system, tools));
    if (this.deps.signal.aborted) return this.cancelled();
    if (!prompt) return this.contextFull();
    if (early) early.taken = true;
    let result = await this.callModel(step, system, tools, prompt, offerTools, early?.call);
    if (!result.ok && result.error.code === 'context_overflow') {
      // The provider counts differently from our estimate: compact harder, and try once more.
      await this.context.compactHarder(system, tools, prompt.estimatedTokens, result.window);
      if (this.deps.signal.aborted) return this.cancelled();
      result = await this.callModel(step, system, tools, this.context.prepare(system, tools), offerTools);
      if (!result.ok && result.error.code === 'context_overflow') return this.contextFull();
    }
    if (!result.ok) {
      if (result.error.code !== 'cancelled') return this.stop('error', result.error);
      // A cancel keeps what the user already saw; a failure keeps nothing (it was not an answer).
      if (result.partialText.length > 0) {
        const message = assistantMessage(result.partialText);
        this.messages.push(message);
        this.emit({ type: 'assistant-message', message, finishReason: 'cancelled', usage: result.usage });
      }
      return this.cancelled();
    }

    // A call cut by the output limit, or refused, or made when no tools were offered, never runs.
    const runnable = offerTools && result.finishReason !== 'max_tokens' && result.finishReason !== 'refusal';
    const blocks = runnable ? result.blocks : result.blocks.filter((block) => block.type !== 'tool_use');
    const calls = runnable ? result.toolCalls : [];
    const message = assistantMessage(blocks);
    this.messages.push(message);
    this.emit({ type: 'assistant-message', message, finishReason: result.finishReason, usage: result.usage });

    if (result.finishReason === 'max_tokens') {
      return this.stop('max_tokens', { code: 'output_limit', message: 'The model reached its output limit before it finished.' });
    }
    if (result.finishReason === 'refusal') return this.stop('refusal');
    // A paused answer goes on in the next call, which continues the stored assistant message.
    if (result.finishReason === 'paused' && calls.length === 0) return undefined;
    if (calls.length === 0) return this.stop('end_turn');
    return this.handleToolCalls(calls);
  }

  private async callModel(step: number, system: string, tools: ToolSpec[], prompt: Prompt, offerTools: boolean, sent?: SentCall) {
    const result = await callModel({ ...stepCallOptions(this.calls, step, system, tools, prompt, offerTools), ...(sent ? { sent } : {}) });
    // A step that will run tools holds what it tells from here on, for the next request to go first.
    if (this.deps.requestSent && offerTools && result.ok && result.toolCalls.length > 0) this.held.hold();
    this.spent({ model: this.deps.model.id, usage: result.usage });
    this.context.observe(prompt.estimatedTokens, result.usage.inputTokens);
    return result;
  }

  /** Every model call's usage, the summaries' included: summed for the turn, and told as it is spent. */
  private spent(call: ModelCallUsage): void {
    this.usage = addUsage(this.usage, call.usage);
    this.modelCalls.push(call);
    this.deps.spent?.(call);
  }

  private contextFull(): TurnOutcome {
    return this.stop('max_tokens', { code: 'context_full', message: 'The conversation no longer fits the model’s context window, even compacted.' });
  }

  private async handleToolCalls(calls: AssembledToolCall[]): Promise<TurnOutcome | undefined> {
    const waiting = await takeToolCalls(calls, this.toolStep());
    if (this.deps.signal.aborted) return this.cancelled();
    if (waiting.length === 0) return undefined;
    this.emit({ type: 'turn-suspend', pending: waiting });
    return this.stop('tool_use');
  }

  private toolStep(): ToolStepTurn {
    return { input: this.input, deps: this.deps, emit: this.emit, messages: this.messages, open: this.open };
  }

  /** Every call still open gets an error result, so the history never holds an unanswered call. */
  private closeOpenCalls(): void {
    for (const [toolCallId, call] of [...this.open]) {
      this.emit({ type: 'tool-execution-end', toolCallId, name: call.name, content: INTERRUPTED_TEXT, isError: true, state: 'interrupted', at: this.deps.now() });
    }
  }

  private cancelled(): TurnOutcome {
    return this.stop('error', { code: 'cancelled', message: 'The turn was cancelled.' });
  }

  private stop(stopReason: StopReason, error?: TurnError): TurnOutcome {
    const outcome: TurnOutcome = { stopReason, usage: this.usage, modelCalls: this.modelCalls };
    if (error) outcome.error = error;
    if (this.maxIterationsReached) outcome.maxIterationsReached = true;
    return outcome;
  }
}
