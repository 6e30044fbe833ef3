/**
 * A turn's tool calls: the answers to those the previous turn left pending (the client's results, the
 * user's permissions), and a step's, in the order the model made them: each told, then denied by a
 * rule (its result placed at once), left waiting for the client or the user, or run here
 * (`tool-phase.ts`), its result placed in the call's order.
 */
import type { HistoryMessage, ToolMessage } from '../api/content';
import type { AssembledToolCall } from './block-assembler';
import { classifyCall } from './classify-call';
import type { Emit, PendingToolCall } from './events';
import { placeToolResult, toolResult } from './history';
import { denialText, runServerTools, type ServerCall } from './tool-phase';
import type { ResolvedAnswer, TurnDeps, TurnInput } from './turn-types';

/** What the calls need of their turn: `open` holds each call told and not yet answered. */
export type ToolStepTurn = {
  input: Pick<TurnInput, 'clientTools'>;
  deps: TurnDeps;
  emit: Emit;
  messages: HistoryMessage[];
  open: Map<string, { name: string; input: Record<string, unknown> }>;
};

const DENIED_TEXT = 'Tool call denied by a permission rule of this session.';

/** Tells, denies or runs each call; returns those that wait for the client or the user. */
export async function takeToolCalls(calls: AssembledToolCall[], turn: ToolStepTurn): Promise<PendingToolCall[]> {
  const { deps, emit, messages } = turn;
  const inline: ServerCall[] = [];
  const waiting: PendingToolCall[] = [];
  for (const call of calls) {
    const execution = classifyCall(call, turn.input.clientTools, deps.tools, deps.rules);
    turn.open.set(call.toolCallId, { name: call.name, input: call.input });
    emit({ type: 'tool-call', toolCallId: call.toolCallId, name: call.name, input: call.input, execution });
    if (execution === 'denied') {
      deny(turn, call, DENIED_TEXT);
    } else if (execution === 'client' || execution === 'untrusted') {
      waiting.push({ toolCallId: call.toolCallId, name: call.name, input: call.input, awaiting: execution === 'client' ? 'client' : 'permission' });
    } else {
      inline.push(call);
    }
  }
  for (const result of await runTools(inline, deps, emit)) placeToolResult(messages, result);
  return waiting;
}

/**
 * The answers, in call order: each told; a result placed (unless `placed`: a first call sent early
 * placed it already), a denial's result placed, the granted calls run (with the arguments the user
 * edited, where they did).
 */
export async function takeAnswers(answers: ResolvedAnswer[], turn: ToolStepTurn, placed: boolean): Promise<void> {
  const { deps, emit, messages } = turn;
  const granted: ServerCall[] = [];
  for (const { call, answer } of answers) {
    const input = answer.kind === 'permission' && answer.granted && answer.input ? answer.input : call.input;
    turn.open.set(call.toolCallId, { name: call.name, input });
    emit({ type: 'tool-answer', toolCallId: call.toolCallId, name: call.name, input, answer });
    if (answer.kind === 'result') {
      if (!placed) placeToolResult(messages, toolResult(call.toolCallId, answer));
    } else if (answer.granted) {
      granted.push({ toolCallId: call.toolCallId, name: call.name, input });
    } else {
      deny(turn, call, denialText(answer.reason));
    }
  }
  for (const result of await runTools(granted, deps, emit)) placeToolResult(messages, result);
}

/** A denied call's result (by a rule, or by the user), told and placed. */
function deny(turn: ToolStepTurn, call: { toolCallId: string; name: string }, content: string): void {
  turn.emit({ type: 'tool-execution-end', toolCallId: call.toolCallId, name: call.name, content, isError: true, state: 'denied', at: turn.deps.now() });
  placeToolResult(turn.messages, toolResult(call.toolCallId, { content, isError: true }));
}

/** Server calls run here, their results in the calls' order. */
function runTools(calls: ServerCall[], deps: TurnDeps, emit: Emit): Promise<ToolMessage[]> {
  const { tools, toolContext: context, signal, toolTimeoutMs: timeoutMs, toolConcurrency: concurrency } = deps;
  return calls.length === 0 ? Promise.resolve([]) : runServerTools(calls, { tools, context, signal, emit, timeoutMs, ...(concurrency !== undefined ? { concurrency } : {}) });
}
