/**
 * The Harness chat endpoint's events (docs/harness.md): a run opens with `AGENT_START`,
 * echoes the answers it was given (`USER_CONFIRM_RESULT`, `EXTERNAL_EXECUTION_RESULT`,
 * `ALL_TOOLS_DENIED`), frames each model call with `MODEL_CALL_START`/`MODEL_CALL_END {usage}` and its
 * blocks with `*_START/_DELTA/_END`, tells each executed tool as `TOOL_RESULT_START`, its text and
 * data, `TOOL_RESULT_END {state}`, stops for calls with `REQUIRE_USER_CONFIRM` or
 * `REQUIRE_EXTERNAL_EXECUTION` then `REQUEST_STOP`, and closes with `AGENT_RESULT` then `AGENT_END`.
 *
 * Pure, given its clock: event ids are the turn's id and a counter (32 hex, unique per run), so the
 * same events give the same ids.
 */
import type { AgentEvent, PendingToolCall } from '../agent/events';
import { plainText, type AssistantMessage, type ToolResultContent } from '../api/content';
import { nothing, tableEncoder, type EncoderTable, type WireEncoder } from './encoder';
import { confirmOf, contentOf, dataBlock, externalOf, harnessUsage, microseconds, msgTimestamp, sumCalls, toolUse, uuidOf } from './harness-convert';
import type { ConfirmResult, GenerateReason, HarnessContentBlock, HarnessEvent, ToolResultBlock, ToolUseBlock } from './harness-events';

/** Base64 characters per DATA_BLOCK_DELTA (a multiple of 4, so each slice decodes on its own). */
const DATA_SLICE = 16_384;

type Body<Type extends HarnessEvent['type']> = Omit<Extract<HarnessEvent, { type: Type }>, 'type' | 'id' | 'createdAt'>;
type Handlers<Types extends keyof EncoderTable<HarnessEvent>> = Pick<EncoderTable<HarnessEvent>, Types>;
type StreamTypes = 'model-call-start' | 'model-call-end' | 'model-call-retry' | 'thinking-start' | 'thinking-delta' | 'thinking-end' | 'text-start' | 'text-delta' | 'text-end' | 'tool-input-start' | 'tool-input-delta' | 'tool-input-end';
type ToolTypes = 'tool-answer' | 'tool-execution-start' | 'tool-execution-end' | 'tool-progress' | 'tool-call' | 'step-start' | 'step-end' | 'subagent-event' | 'subagent-exposed';

/** `source`: set on every event (a sub-agent's, forwarded: `main/<agentId>`). */
export type HarnessRun = { sessionId: string; agentName?: string; source?: string; now: () => number };

export function createHarnessEncoder(run: HarnessRun): WireEncoder<HarnessEvent> {
  const state = new HarnessEncoding(run);
  return tableEncoder<HarnessEvent>({ ...streamHandlers(state), ...toolHandlers(state), ...runHandlers(state) });
}

/** What the encoder keeps between events: the run's ids, the answers it echoes, the step's calls. */
class HarnessEncoding {
  replyId = '';
  idPrefix = '0'.repeat(24);
  counter = 0;
  /** Answers the request brought, echoed together once the last of them is known. */
  answering = true;
  readonly confirms: ConfirmResult[] = [];
  readonly externals: ToolResultBlock[] = [];
  readonly held: HarnessEvent[] = [];
  readonly executing = new Set<string>();
  readonly names = new Map<string, string>();
  pending: PendingToolCall[] = [];
  /** The current step's calls, and those a permission rule denied. */
  stepCalls: ToolUseBlock[] = [];
  readonly stepDenied = new Set<string>();
  lastMessage: AssistantMessage | undefined;
  /** Images the run's tools made: pushed to the user as data blocks with the final answer. */
  readonly images: Extract<HarnessContentBlock, { type: 'data' }>[] = [];
  callSeconds = 0;
  /** Whether a model call has started: a user message after that was steered into the run. */
  modelCalled = false;
  /** Each sub-agent's events, told by an encoder of their own with their source. */
  readonly subagents = new Map<string, WireEncoder<HarnessEvent>>();

  /** The last clock reading and its text: a fast stream makes many events in one millisecond. */
  private stampAt = Number.NaN;
  private stamp = '';

  constructor(readonly run: HarnessRun) {}

  make<Type extends HarnessEvent['type']>(type: Type, body: Body<Type>): HarnessEvent {
    const at = this.run.now();
    if (at !== this.stampAt) {
      this.stampAt = at;
      this.stamp = microseconds(at);
    }
    return {
      type,
      id: `${this.idPrefix}${(this.counter++).toString(16).padStart(8, '0')}`,
      createdAt: this.stamp,
      ...(this.run.source ? { source: this.run.source } : {}),
      ...body,
    } as unknown as HarnessEvent;
  }

  toolResult(toolCallId: string, name: string, content: ToolResultContent, state: ToolResultBlock['state']): HarnessEvent[] {
    const replyId = this.replyId;
    const events: HarnessEvent[] = this.executing.delete(toolCallId) ? [] : [this.make('TOOL_RESULT_START', { replyId, toolCallId, toolCallName: name })];
    const blocks = typeof content === 'string' ? [{ type: 'text' as const, text: content }] : content;
    blocks.forEach((block, index) => {
      if (block.type === 'text') events.push(this.make('TOOL_RESULT_TEXT_DELTA', { replyId, toolCallId, toolCallName: name, delta: block.text }));
      else events.push(this.make('TOOL_RESULT_DATA_DELTA', { replyId, toolCallId, toolCallName: name, data: dataBlock(block, `${toolCallId}-${index}`) }));
    });
    events.push(this.make('TOOL_RESULT_END', { replyId, toolCallId, toolCallName: name, state }));
    return events;
  }

  /** The echo of the answers, then what was held while they came (the denials' results). */
  endAnswers(): HarnessEvent[] {
    if (!this.answering) return [];
    this.answering = false;
    const { confirms, externals, replyId } = this;
    const events: HarnessEvent[] = [];
    if (confirms.length > 0) events.push(this.make('USER_CONFIRM_RESULT', { replyId, confirmResults: confirms }));
    if (externals.length > 0) events.push(this.make('EXTERNAL_EXECUTION_RESULT', { replyId, toolResults: externals }));
    if (confirms.length > 0 && confirms.every((confirm) => !confirm.confirmed)) {
      events.push(this.make('ALL_TOOLS_DENIED', { deniedToolCalls: confirms.map((confirm) => confirm.toolCall) }));
    }
    return [...events, ...this.held.splice(0)];
  }

  /** The images the tools made, to the user directly (the Harness protocol's DATA_BLOCK_*), in base64 slices. */
  imageBlocks(): HarnessEvent[] {
    const replyId = this.replyId;
    return this.images.flatMap((image, index) => {
      const blockId = `data-${index + 1}`;
      const events = [this.make('DATA_BLOCK_START', { replyId, blockId })];
      if (image.source.type === 'base64') {
        for (let at = 0; at < image.source.data.length; at += DATA_SLICE) {
          events.push(this.make('DATA_BLOCK_DELTA', { replyId, blockId, delta: image.source.data.slice(at, at + DATA_SLICE) }));
        }
      }
      events.push(this.make('DATA_BLOCK_END', { replyId, blockId }));
      return events;
    });
  }

  /** How the run ended, in the Harness protocol's words, and the `REQUEST_STOP` that says so where one is due. */
  stopReason(event: Extract<AgentEvent, { type: 'turn-stop' }>): { reason: GenerateReason; stop?: HarnessEvent } {
    if (event.stopReason === 'tool_use') return { reason: this.pending.some((call) => call.awaiting === 'permission') ? 'PERMISSION_ASKING' : 'TOOL_SUSPENDED' };
    if (event.stopReason === 'error') {
      return { reason: 'INTERRUPTED', stop: this.make('REQUEST_STOP', { reason: event.error?.message ?? 'The run failed.', generateReason: 'INTERRUPTED' }) };
    }
    if (event.error?.code === 'budget_spent') {
      // A spent TURN_TOKEN_BUDGET: the run pauses; a next request with the same sessionId goes on.
      return { reason: 'MIDDLEWARE_STOP_REQUESTED', stop: this.make('REQUEST_STOP', { reason: event.error.message, generateReason: 'MIDDLEWARE_STOP_REQUESTED' }) };
    }
    return { reason: event.maxIterationsReached ? 'MAX_ITERATIONS' : 'MODEL_STOP' };
  }
}

/** Each model call and its blocks as they stream. */
function streamHandlers(s: HarnessEncoding): Handlers<StreamTypes> {
  return {
    'model-call-start': () => {
      s.modelCalled = true;
      return [...s.endAnswers(), s.make('MODEL_CALL_START', { replyId: s.replyId })];
    },
    'model-call-end': (event) => {
      s.callSeconds += event.durationMs / 1000;
      return [s.make('MODEL_CALL_END', { replyId: s.replyId, usage: harnessUsage(event.usage, event.durationMs / 1000) })];
    },
    'model-call-retry': nothing,
    'thinking-start': (event) => [s.make('THINKING_BLOCK_START', { replyId: s.replyId, blockId: event.blockId })],
    'thinking-delta': (event) => [s.make('THINKING_BLOCK_DELTA', { replyId: s.replyId, blockId: event.blockId, delta: event.delta })],
    'thinking-end': (event) => [s.make('THINKING_BLOCK_END', { replyId: s.replyId, blockId: event.blockId })],
    'text-start': (event) => [s.make('TEXT_BLOCK_START', { replyId: s.replyId, blockId: event.blockId })],
    'text-delta': (event) => [s.make('TEXT_BLOCK_DELTA', { replyId: s.replyId, blockId: event.blockId, delta: event.delta })],
    'text-end': (event) => [s.make('TEXT_BLOCK_END', { replyId: s.replyId, blockId: event.blockId })],
    'tool-input-start': (event) => {
      s.names.set(event.toolCallId, event.name);
      return [s.make('TOOL_CALL_START', { replyId: s.replyId, toolCallId: event.toolCallId, toolCallName: event.name })];
    },
    'tool-input-delta': (event) => [
      s.make('TOOL_CALL_DELTA', { replyId: s.replyId, toolCallId: event.toolCallId, toolCallName: s.names.get(event.toolCallId) ?? '', delta: event.delta }),
    ],
    'tool-input-end': (event) => [s.make('TOOL_CALL_END', { replyId: s.replyId, toolCallId: event.toolCallId, toolCallName: event.name })],
  };
}

/** The answers a request brought, the tools that ran, each step's calls, and sub-agents. */
function toolHandlers(s: HarnessEncoding): Handlers<ToolTypes> {
  return {
    'tool-answer': (event) => {
      s.names.set(event.toolCallId, event.name);
      if (event.answer.kind === 'permission') s.confirms.push(confirmOf(event.toolCallId, event.name, event.input, event.answer));
      else s.externals.push(externalOf(event.toolCallId, event.name, event.answer));
      return [];
    },
    'tool-execution-start': (event) => {
      s.executing.add(event.toolCallId);
      return [...s.endAnswers(), s.make('TOOL_RESULT_START', { replyId: s.replyId, toolCallId: event.toolCallId, toolCallName: event.name })];
    },
    'tool-execution-end': (event) => {
      if (event.state === 'denied') s.stepDenied.add(event.toolCallId);
      if (typeof event.content !== 'string') {
        event.content.forEach((block, index) => {
          if (block.type === 'image' && 'data' in block) s.images.push(dataBlock(block, `${event.toolCallId}-${index}`) as Extract<HarnessContentBlock, { type: 'data' }>);
        });
      }
      const events = s.toolResult(event.toolCallId, event.name, event.content, event.state);
      if (s.answering && event.state === 'denied') {
        s.held.push(...events);
        return [];
      }
      return [...s.endAnswers(), ...events];
    },
    'tool-progress': (event) => [
      s.make('CUSTOM', {
        name: 'task_progress',
        value: { taskId: event.toolCallId, toolCallName: event.name, progress: event.progress, status: 'RUNNING', detail: event.detail },
      }),
    ],
    'tool-call': (event) => {
      s.stepCalls.push({ id: event.toolCallId, name: event.name, input: event.input, content: null, metadata: {}, state: 'finished' });
      return [];
    },
    'step-start': () => s.endAnswers(),
    'step-end': () => {
      // Every call of the step's batch refused by the session's rules.
      const denied = s.stepCalls.length > 0 && s.stepCalls.every((call) => s.stepDenied.has(call.id));
      const events = denied ? [s.make('ALL_TOOLS_DENIED', { deniedToolCalls: s.stepCalls })] : [];
      s.stepCalls = [];
      s.stepDenied.clear();
      return events;
    },
    'subagent-event': (event) => {
      let encoder = s.subagents.get(event.sessionId);
      if (!encoder) {
        encoder = createHarnessEncoder({ sessionId: event.sessionId, agentName: event.source.split('/').pop() ?? 'subagent', source: event.source, now: s.run.now });
        s.subagents.set(event.sessionId, encoder);
      }
      return encoder.encode(event.event);
    },
    'subagent-exposed': (event) => [s.make('SUBAGENT_EXPOSED', { subagentId: event.subagentId, agentId: event.agentId, sessionId: event.sessionId, label: event.label })],
  };
}

/** The run's start, its messages, notes, its suspension and its end. */
function runHandlers(s: HarnessEncoding): Handlers<Exclude<keyof EncoderTable<HarnessEvent>, StreamTypes | ToolTypes>> {
  return {
    'turn-start': (event) => {
      s.replyId = event.turnId;
      s.idPrefix = (event.turnId.replace(/^turn_/, '') + '0'.repeat(24)).slice(0, 24);
      return [s.make('AGENT_START', { sessionId: s.run.sessionId, replyId: s.replyId, name: s.run.agentName ?? 'assistant', role: 'assistant' })];
    },
    // A user message steered into the run while it answered (ifBusy "steer"): a note in the stream.
    'input-message': (event) => {
      if (!s.modelCalled || event.message.role !== 'user') return s.endAnswers();
      return [s.make('HINT_BLOCK', { replyId: s.replyId, blockId: `hint-${s.counter}`, hintSource: 'user', hint: plainText(event.message.content) })];
    },
    'assistant-message': (event) => {
      s.lastMessage = event.message;
      return [];
    },
    'iteration-limit': (event) => [...s.endAnswers(), s.make('EXCEED_MAX_ITERS', { replyId: s.replyId, maxIters: event.maxIterations, currentIter: event.maxIterations })],
    // An out-of-band note: the oldest history was summarised to make room.
    'context-compacted': (event) => [
      ...s.endAnswers(),
      s.make('HINT_BLOCK', {
        replyId: s.replyId,
        blockId: `hint-${s.counter}`,
        hintSource: 'system',
        hint: `${event.messagesSummarized} earlier messages were summarised to fit the model's context window.`,
      }),
    ],
    'turn-suspend': (event) => {
      s.pending = event.pending;
      const asking = s.pending.filter((call) => call.awaiting === 'permission');
      const external = s.pending.filter((call) => call.awaiting === 'client');
      const events: HarnessEvent[] = [];
      if (asking.length > 0) events.push(s.make('REQUIRE_USER_CONFIRM', { replyId: s.replyId, toolCalls: asking.map((call) => toolUse(call, 'asking')) }));
      if (external.length > 0) events.push(s.make('REQUIRE_EXTERNAL_EXECUTION', { replyId: s.replyId, toolCalls: external.map((call) => toolUse(call, 'pending')) }));
      events.push(
        asking.length > 0
          ? s.make('REQUEST_STOP', { reason: `${asking.length} tool call(s) need the user's confirmation.`, generateReason: 'PERMISSION_ASKING' })
          : s.make('REQUEST_STOP', { reason: `${external.length} tool call(s) are to be run by the client.`, generateReason: 'TOOL_SUSPENDED' }),
      );
      return events;
    },
    'turn-stop': (event) => {
      const events = s.endAnswers();
      const { reason, stop } = s.stopReason(event);
      if (stop) events.push(stop);
      events.push(...s.imageBlocks());
      const metadata: Record<string, unknown> = { agentscope_generate_reason: reason, stop_reason: event.stopReason };
      if (event.error) metadata.error = event.error;
      const result = {
        id: uuidOf(s.idPrefix),
        name: s.run.agentName ?? 'assistant',
        role: 'ASSISTANT' as const,
        content: [...(s.lastMessage ? contentOf(s.lastMessage) : []), ...s.images],
        metadata: metadata as { agentscope_generate_reason: GenerateReason },
        timestamp: msgTimestamp(s.run.now()),
        usage: harnessUsage(sumCalls(event.modelCalls), s.callSeconds),
      };
      events.push(s.make('AGENT_RESULT', { result }), s.make('AGENT_END', { replyId: s.replyId }));
      return events;
    },
  };
}
