/**
 * `stream: "pi"`: the pi agent's events (seed 004, CONTRACT section 8), as pi-agent-core's loop emits
 * them: `agent_start`, `turn_start`, the request's messages (`message_start`/`message_end`), each model
 * call's `message_start`, `message_update`s and `message_end`, the executions of its server tools
 * (`tool_execution_start` for every call of a batch before any end), the results as messages in call
 * order, `turn_end`, and `agent_end` with every message the run added. A pi *turn* is our *step*.
 *
 * Choices (docs/decisions.md 19):
 * - `message_update` carries the message's header with empty `content`, in `message` and in
 *   `assistantMessageEvent.partial`. Repeating the content so far on every delta would make a long
 *   answer's stream grow with the square of its length (pi's own proxy drops `partial` for the same
 *   reason); the content comes whole in `message_end`, and each block whole in its `*_end`.
 * - Answers a request brings for pending calls (a client's results, the user's permission) belong to
 *   the first turn, as pi puts a run's prompts in it: their results are messages of that turn, not
 *   of its `turn_end.toolResults`, which lists the results of the turn's own calls.
 * - A failure with no model message (a full context window, a cancel before the call) is told as pi
 *   tells failures: an assistant message with `stopReason: "error"` (or `"aborted"`) and `errorMessage`.
 */
import type { AgentEvent, TurnError } from '../agent/events';
import { emptyUsage } from '../agent/usage';
import { assertNever } from '../lib/assert-never';
import type { WireEncoder } from './encoder';
import {
  piModelOf,
  piStopReason,
  toPiAssistantContent,
  toPiToolContent,
  toPiUsage,
  toPiUserContent,
} from './pi-convert';
import type { PiAgentEvent, PiAssistantMessage, PiAssistantMessageEvent, PiMessage, PiToolResultMessage } from './pi-events';

type OpenMessage = { header: PiAssistantMessage; error?: TurnError };

export function createPiEncoder(): WireEncoder<PiAgentEvent> {
  let model = piModelOf('unknown:unknown');
  let turnAt = 0;
  /** Every message the run added, for `agent_end`. */
  const added: PiMessage[] = [];
  let turnOpen = false;
  let inStep = false;
  /** The model call whose message is streaming. */
  let open: OpenMessage | undefined;
  /** The assistant message that ended in the current pi turn. */
  let turnMessage: PiAssistantMessage | undefined;
  /** The current step's calls, in call order, and the results they got. */
  let stepCalls: string[] = [];
  const stepResults = new Map<string, PiToolResultMessage>();
  /** Answers to earlier calls, in call order, with the results they got (told before the first step). */
  let answered: string[] = [];
  const answers = new Map<string, PiToolResultMessage>();
  const executing = new Set<string>();

  const header = (at: number): PiAssistantMessage => ({
    role: 'assistant',
    content: [],
    ...model,
    usage: toPiUsage(emptyUsage()),
    stopReason: 'stop',
    timestamp: at,
  });
  const messageEvents = (message: PiMessage): PiAgentEvent[] => {
    added.push(message);
    return [
      { type: 'message_start', message },
      { type: 'message_end', message },
    ];
  };
  const update = (assistantMessageEvent: DistributiveOmit<PiAssistantMessageEvent, 'partial'>): PiAgentEvent[] => {
    if (!open) return [];
    const partial = open.header;
    return [{ type: 'message_update', message: partial, assistantMessageEvent: { ...assistantMessageEvent, partial } as PiAssistantMessageEvent }];
  };
  const endMessage = (message: PiAssistantMessage): PiAgentEvent[] => {
    open = undefined;
    turnMessage = message;
    added.push(message);
    return [{ type: 'message_end', message }];
  };
  /** A model call that ended without a message of its own: its failure, as pi tells one. */
  const endFailed = (failed: OpenMessage, error: TurnError): PiAgentEvent[] =>
    endMessage({ ...failed.header, stopReason: error.code === 'cancelled' ? 'aborted' : 'error', errorMessage: error.message });
  const closeTurn = (): PiAgentEvent[] => {
    if (!turnOpen || !turnMessage) return [];
    const toolResults = stepCalls.flatMap((id) => {
      const result = stepResults.get(id);
      return result ? [result] : [];
    });
    const events = toolResults.flatMap(messageEvents);
    events.push({ type: 'turn_end', message: turnMessage, toolResults });
    turnOpen = false;
    turnMessage = undefined;
    stepCalls = [];
    stepResults.clear();
    return events;
  };
  /** The answers' results as messages, in call order, once every one of them has its result. */
  const tellAnswers = (): PiAgentEvent[] => {
    const events = answered.flatMap((id) => {
      const message = answers.get(id);
      return message ? messageEvents(message) : [];
    });
    answered = [];
    answers.clear();
    return events;
  };
  const result = (toolCallId: string, toolName: string, content: PiToolResultMessage['content'], isError: boolean, at: number): PiToolResultMessage => ({
    role: 'toolResult',
    toolCallId,
    toolName,
    content,
    isError,
    timestamp: at,
  });

  const encode = (event: AgentEvent): PiAgentEvent[] => {
    switch (event.type) {
      case 'turn-start':
        model = piModelOf(event.model);
        turnAt = event.at;
        turnOpen = true;
        return [{ type: 'agent_start' }, { type: 'turn_start' }];
      case 'input-message': {
        const events = tellAnswers();
        // pi has no system messages in a conversation (its system prompt stands apart).
        if (event.message.role !== 'user') return events;
        return [...events, ...messageEvents({ role: 'user', content: toPiUserContent(event.message.content), timestamp: turnAt })];
      }
      case 'tool-answer':
        answered.push(event.toolCallId);
        // A client's result: the client ran the tool, so there is no execution to tell, only its message.
        if (event.answer.kind === 'result') {
          answers.set(event.toolCallId, result(event.toolCallId, event.name, toPiToolContent(event.answer.content), event.answer.isError, turnAt));
        }
        return [];
      case 'step-start': {
        inStep = true;
        const events = tellAnswers();
        if (turnOpen) return events;
        turnOpen = true;
        return [...events, { type: 'turn_start' }];
      }
      case 'model-call-start': {
        // A call that failed and is made again (a context overflow, compacted) has ended first.
        const events = open ? endFailed(open, open.error ?? { code: 'error', message: 'The model call failed.' }) : [];
        open = { header: header(event.at) };
        events.push({ type: 'message_start', message: open.header });
        return events;
      }
      case 'text-start':
        return update({ type: 'text_start', contentIndex: event.contentIndex });
      case 'text-delta':
        return update({ type: 'text_delta', contentIndex: indexOf(event.blockId), delta: event.delta });
      case 'text-end':
        return update({ type: 'text_end', contentIndex: indexOf(event.blockId), content: event.text });
      case 'thinking-start':
        return update({ type: 'thinking_start', contentIndex: event.contentIndex });
      case 'thinking-delta':
        return update({ type: 'thinking_delta', contentIndex: indexOf(event.blockId), delta: event.delta });
      case 'thinking-end':
        return update({ type: 'thinking_end', contentIndex: indexOf(event.blockId), content: event.thinking });
      case 'tool-input-start':
        return update({ type: 'toolcall_start', contentIndex: event.contentIndex });
      case 'tool-input-delta':
        return update({ type: 'toolcall_delta', contentIndex: indexOf(event.blockId), delta: event.delta });
      case 'tool-input-end':
        return update({
          type: 'toolcall_end',
          contentIndex: indexOf(event.blockId),
          toolCall: { type: 'toolCall', id: event.toolCallId, name: event.name, arguments: event.input },
        });
      case 'model-call-end':
        if (open && event.error) open.error = event.error;
        if (open) open.header = { ...open.header, usage: toPiUsage(event.usage) };
        return [];
      case 'assistant-message': {
        if (!open) return [];
        const message: PiAssistantMessage = {
          ...open.header,
          content: toPiAssistantContent(event.message.content),
          usage: toPiUsage(event.usage),
          stopReason: piStopReason(event.finishReason),
        };
        if (event.finishReason === 'refusal') message.errorMessage = refusalText(message);
        return endMessage(message);
      }
      case 'tool-call':
        stepCalls.push(event.toolCallId);
        return [];
      case 'tool-progress':
        return [
          {
            type: 'tool_execution_update',
            toolCallId: event.toolCallId,
            toolName: event.name,
            args: event.input,
            partialResult: { content: [{ type: 'text', text: event.detail }], details: { progress: event.progress } },
          },
        ];
      case 'tool-execution-start':
        executing.add(event.toolCallId);
        return [{ type: 'tool_execution_start', toolCallId: event.toolCallId, toolName: event.name, args: event.input }];
      case 'tool-execution-end': {
        const content = toPiToolContent(event.content);
        // A denial or an interruption never started: pi still opens every execution it ends.
        const events: PiAgentEvent[] = executing.delete(event.toolCallId)
          ? []
          : [{ type: 'tool_execution_start', toolCallId: event.toolCallId, toolName: event.name, args: {} }];
        events.push({ type: 'tool_execution_end', toolCallId: event.toolCallId, toolName: event.name, result: { content, details: {} }, isError: event.isError });
        const message = result(event.toolCallId, event.name, content, event.isError, event.at);
        // Results come as messages once their batch is done, in call order: a step's before its
        // `turn_end`, the answers' before the first step.
        if (inStep && stepCalls.includes(event.toolCallId)) stepResults.set(event.toolCallId, message);
        else if (answered.includes(event.toolCallId)) answers.set(event.toolCallId, message);
        else events.push(...messageEvents(message));
        return events;
      }
      case 'step-end': {
        inStep = false;
        const events = open ? endFailed(open, open.error ?? { code: 'error', message: 'The model call failed.' }) : [];
        return [...events, ...closeTurn()];
      }
      case 'turn-stop': {
        const events: PiAgentEvent[] = tellAnswers();
        if (turnOpen && !turnMessage) {
          const failed: OpenMessage = open ?? { header: header(turnAt) };
          if (!open) events.push({ type: 'message_start', message: failed.header });
          events.push(...endFailed(failed, event.error ?? { code: 'error', message: 'The turn ended without an answer.' }));
        }
        events.push(...closeTurn(), { type: 'agent_end', messages: added });
        return events;
      }
      case 'context-compacted':
      case 'model-call-retry':
      case 'iteration-limit':
      case 'turn-suspend':
      case 'subagent-event':
      case 'subagent-exposed':
        return [];
      default:
        return assertNever(event);
    }
  };

  // Block events after the first name their block by id; pi names it by its index in the message.
  const indexes = new Map<string, number>();
  const indexOf = (blockId: string): number => indexes.get(blockId) ?? 0;

  return {
    encode(event) {
      if (event.type === 'text-start' || event.type === 'thinking-start' || event.type === 'tool-input-start') {
        indexes.set(event.blockId, event.contentIndex);
      }
      return encode(event);
    },
  };
}

function refusalText(message: PiAssistantMessage): string {
  const text = message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
  return text === '' ? 'The model refused to answer.' : text;
}

type DistributiveOmit<T, K extends keyof never> = T extends unknown ? Omit<T, K> : never;
