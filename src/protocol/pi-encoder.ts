/**
 * `stream: "pi"`: the pi agent's events (docs/pi-and-agui.md), as pi-agent-core's loop emits
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
import type { TurnError } from '../agent/events';
import { emptyUsage } from '../agent/usage';
import { type EncoderTable, ignoring, tableEncoder, type WireEncoder } from './encoder';
import { piModelOf, piStopReason, toPiAssistantContent, toPiToolContent, toPiUsage, toPiUserContent } from './pi-convert';
import type { PiAgentEvent, PiAssistantMessage, PiAssistantMessageEvent, PiMessage, PiToolResultMessage } from './pi-events';

type OpenMessage = { header: PiAssistantMessage; error?: TurnError };
type Handlers<Types extends keyof EncoderTable<PiAgentEvent>> = Pick<EncoderTable<PiAgentEvent>, Types>;
type MessageTypes = 'turn-start' | 'input-message' | 'tool-answer' | 'step-start' | 'model-call-start' | 'text-start' | 'text-delta' | 'text-end' | 'thinking-start' | 'thinking-delta' | 'thinking-end' | 'tool-input-start' | 'tool-input-delta' | 'tool-input-end' | 'model-call-end' | 'assistant-message';

export function createPiEncoder(): WireEncoder<PiAgentEvent> {
  const state = new PiEncoding();
  const table = tableEncoder<PiAgentEvent>({ ...messageHandlers(state), ...toolHandlers(state) });
  return {
    encode(event) {
      // Block events after the first name their block by id; pi names it by its index in the message.
      if (event.type === 'text-start' || event.type === 'thinking-start' || event.type === 'tool-input-start') {
        state.indexes.set(event.blockId, event.contentIndex);
      }
      return table.encode(event);
    },
  };
}

/** What the encoder keeps between events: the run's messages, the open model call, the step's calls. */
class PiEncoding {
  model = piModelOf('unknown:unknown');
  turnAt = 0;
  /** Every message the run added, for `agent_end`. */
  readonly added: PiMessage[] = [];
  turnOpen = false;
  inStep = false;
  /** The model call whose message is streaming. */
  open: OpenMessage | undefined;
  /** The assistant message that ended in the current pi turn. */
  turnMessage: PiAssistantMessage | undefined;
  /** The current step's calls, in call order, and the results they got. */
  stepCalls: string[] = [];
  readonly stepResults = new Map<string, PiToolResultMessage>();
  /** Answers to earlier calls, in call order, with the results they got (told before the first step). */
  answered: string[] = [];
  readonly answers = new Map<string, PiToolResultMessage>();
  readonly executing = new Set<string>();
  readonly indexes = new Map<string, number>();

  indexOf(blockId: string): number {
    return this.indexes.get(blockId) ?? 0;
  }

  header(at: number): PiAssistantMessage {
    return { role: 'assistant', content: [], ...this.model, usage: toPiUsage(emptyUsage()), stopReason: 'stop', timestamp: at };
  }

  messageEvents(message: PiMessage): PiAgentEvent[] {
    this.added.push(message);
    return [
      { type: 'message_start', message },
      { type: 'message_end', message },
    ];
  }

  update(assistantMessageEvent: DistributiveOmit<PiAssistantMessageEvent, 'partial'>): PiAgentEvent[] {
    if (!this.open) return [];
    const partial = this.open.header;
    // The update is a literal its handler made for this call: completed in place, not copied (one per token).
    (assistantMessageEvent as PiAssistantMessageEvent).partial = partial;
    return [{ type: 'message_update', message: partial, assistantMessageEvent: assistantMessageEvent as PiAssistantMessageEvent }];
  }

  endMessage(message: PiAssistantMessage): PiAgentEvent[] {
    this.open = undefined;
    this.turnMessage = message;
    this.added.push(message);
    return [{ type: 'message_end', message }];
  }

  /** A model call that ended without a message of its own: its failure, as pi tells one. */
  endFailed(failed: OpenMessage, error: TurnError): PiAgentEvent[] {
    return this.endMessage({ ...failed.header, stopReason: error.code === 'cancelled' ? 'aborted' : 'error', errorMessage: error.message });
  }

  /** The open call, ended as failed if it never gave its message. */
  endOpen(): PiAgentEvent[] {
    return this.open ? this.endFailed(this.open, this.open.error ?? { code: 'error', message: 'The model call failed.' }) : [];
  }

  closeTurn(): PiAgentEvent[] {
    if (!this.turnOpen || !this.turnMessage) return [];
    const toolResults = this.stepCalls.flatMap((id) => {
      const result = this.stepResults.get(id);
      return result ? [result] : [];
    });
    const events = toolResults.flatMap((message) => this.messageEvents(message));
    events.push({ type: 'turn_end', message: this.turnMessage, toolResults });
    this.turnOpen = false;
    this.turnMessage = undefined;
    this.stepCalls = [];
    this.stepResults.clear();
    return events;
  }

  /** The answers' results as messages, in call order, once every one of them has its result. */
  tellAnswers(): PiAgentEvent[] {
    const events = this.answered.flatMap((id) => {
      const message = this.answers.get(id);
      return message ? this.messageEvents(message) : [];
    });
    this.answered = [];
    this.answers.clear();
    return events;
  }
}

function toolResultMessage(toolCallId: string, toolName: string, content: PiToolResultMessage['content'], isError: boolean, at: number): PiToolResultMessage {
  return { role: 'toolResult', toolCallId, toolName, content, isError, timestamp: at };
}

/** The run's and the turn's start, the request's messages, and each model call's message as it streams. */
function messageHandlers(s: PiEncoding): Handlers<MessageTypes> {
  return {
    'turn-start': (event) => {
      s.model = piModelOf(event.model);
      s.turnAt = event.at;
      s.turnOpen = true;
      return [{ type: 'agent_start' }, { type: 'turn_start' }];
    },
    'input-message': (event) => {
      const events = s.tellAnswers();
      // pi has no system messages in a conversation (its system prompt stands apart).
      if (event.message.role !== 'user') return events;
      return [...events, ...s.messageEvents({ role: 'user', content: toPiUserContent(event.message.content), timestamp: s.turnAt })];
    },
    'tool-answer': (event) => {
      s.answered.push(event.toolCallId);
      // A client's result: the client ran the tool, so there is no execution to tell, only its message.
      if (event.answer.kind === 'result') {
        s.answers.set(event.toolCallId, toolResultMessage(event.toolCallId, event.name, toPiToolContent(event.answer.content), event.answer.isError, s.turnAt));
      }
      return [];
    },
    'step-start': () => {
      s.inStep = true;
      const events = s.tellAnswers();
      if (s.turnOpen) return events;
      s.turnOpen = true;
      return [...events, { type: 'turn_start' }];
    },
    'model-call-start': (event) => {
      // A call that failed and is made again (a context overflow, compacted) has ended first.
      const events = s.endOpen();
      s.open = { header: s.header(event.at) };
      events.push({ type: 'message_start', message: s.open.header });
      return events;
    },
    'text-start': (event) => s.update({ type: 'text_start', contentIndex: event.contentIndex }),
    'text-delta': (event) => s.update({ type: 'text_delta', contentIndex: s.indexOf(event.blockId), delta: event.delta }),
    'text-end': (event) => s.update({ type: 'text_end', contentIndex: s.indexOf(event.blockId), content: event.text }),
    'thinking-start': (event) => s.update({ type: 'thinking_start', contentIndex: event.contentIndex }),
    'thinking-delta': (event) => s.update({ type: 'thinking_delta', contentIndex: s.indexOf(event.blockId), delta: event.delta }),
    'thinking-end': (event) => s.update({ type: 'thinking_end', contentIndex: s.indexOf(event.blockId), content: event.thinking }),
    'tool-input-start': (event) => s.update({ type: 'toolcall_start', contentIndex: event.contentIndex }),
    'tool-input-delta': (event) => s.update({ type: 'toolcall_delta', contentIndex: s.indexOf(event.blockId), delta: event.delta }),
    'tool-input-end': (event) =>
      s.update({
        type: 'toolcall_end',
        contentIndex: s.indexOf(event.blockId),
        toolCall: { type: 'toolCall', id: event.toolCallId, name: event.name, arguments: event.input },
      }),
    'model-call-end': (event) => {
      if (s.open && event.error) s.open.error = event.error;
      if (s.open) s.open.header = { ...s.open.header, usage: toPiUsage(event.usage) };
      return [];
    },
    'assistant-message': (event) => {
      if (!s.open) return [];
      const message: PiAssistantMessage = {
        ...s.open.header,
        content: toPiAssistantContent(event.message.content),
        usage: toPiUsage(event.usage),
        stopReason: piStopReason(event.finishReason),
      };
      if (event.finishReason === 'refusal') message.errorMessage = refusalText(message);
      return s.endMessage(message);
    },
  };
}

/** The step's tools, their results as messages, the turn's and the run's end; and what pi does not tell. */
function toolHandlers(s: PiEncoding): Handlers<Exclude<keyof EncoderTable<PiAgentEvent>, MessageTypes>> {
  return {
    'tool-call': (event) => {
      s.stepCalls.push(event.toolCallId);
      return [];
    },
    'tool-progress': (event) => [
      {
        type: 'tool_execution_update',
        toolCallId: event.toolCallId,
        toolName: event.name,
        args: event.input,
        partialResult: { content: [{ type: 'text', text: event.detail }], details: { progress: event.progress } },
      },
    ],
    'tool-execution-start': (event) => {
      s.executing.add(event.toolCallId);
      return [{ type: 'tool_execution_start', toolCallId: event.toolCallId, toolName: event.name, args: event.input }];
    },
    'tool-execution-end': (event) => {
      const content = toPiToolContent(event.content);
      // A denial or an interruption never started: pi still opens every execution it ends.
      const events: PiAgentEvent[] = s.executing.delete(event.toolCallId)
        ? []
        : [{ type: 'tool_execution_start', toolCallId: event.toolCallId, toolName: event.name, args: {} }];
      events.push({ type: 'tool_execution_end', toolCallId: event.toolCallId, toolName: event.name, result: { content, details: {} }, isError: event.isError });
      const message = toolResultMessage(event.toolCallId, event.name, content, event.isError, event.at);
      // Results come as messages once their batch is done, in call order: a step's before its
      // `turn_end`, the answers' before the first step.
      if (s.inStep && s.stepCalls.includes(event.toolCallId)) s.stepResults.set(event.toolCallId, message);
      else if (s.answered.includes(event.toolCallId)) s.answers.set(event.toolCallId, message);
      else events.push(...s.messageEvents(message));
      return events;
    },
    'step-end': () => {
      s.inStep = false;
      return [...s.endOpen(), ...s.closeTurn()];
    },
    'turn-stop': (event) => {
      const events: PiAgentEvent[] = s.tellAnswers();
      if (s.turnOpen && !s.turnMessage) {
        const failed: OpenMessage = s.open ?? { header: s.header(s.turnAt) };
        if (!s.open) events.push({ type: 'message_start', message: failed.header });
        events.push(...s.endFailed(failed, event.error ?? { code: 'error', message: 'The turn ended without an answer.' }));
      }
      events.push(...s.closeTurn(), { type: 'agent_end', messages: s.added });
      return events;
    },
    ...ignoring(
      'context-compacted', 'model-call-retry', 'iteration-limit', 'turn-suspend', 'subagent-event', 'subagent-exposed',
    ),
  };
}

function refusalText(message: PiAssistantMessage): string {
  const text = message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
  return text === '' ? 'The model refused to answer.' : text;
}

type DistributiveOmit<T, K extends keyof never> = T extends unknown ? Omit<T, K> : never;
