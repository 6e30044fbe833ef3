/**
 * The Harness chat endpoint's events (seed 001, CONTRACT section 6): a run opens with `AGENT_START`,
 * echoes the answers it was given (`USER_CONFIRM_RESULT`, `EXTERNAL_EXECUTION_RESULT`,
 * `ALL_TOOLS_DENIED`), frames each model call with `MODEL_CALL_START`/`MODEL_CALL_END {usage}` and its
 * blocks with `*_START/_DELTA/_END`, tells each executed tool as `TOOL_RESULT_START`, its text and
 * data, `TOOL_RESULT_END {state}`, stops for calls with `REQUIRE_USER_CONFIRM` or
 * `REQUIRE_EXTERNAL_EXECUTION` then `REQUEST_STOP`, and closes with `AGENT_RESULT` then `AGENT_END`.
 *
 * Pure, given its clock: event ids are the turn's id and a counter (32 hex, unique per run), so the
 * same events give the same ids.
 */
import type { AgentEvent, PendingToolCall, ToolAnswer } from '../agent/events';
import { addUsage, emptyUsage, type Usage } from '../agent/usage';
import type { AssistantMessage, ToolResultContent } from '../api/content';
import { assertNever } from '../lib/assert-never';
import type { WireEncoder } from './encoder';
import type { ConfirmResult, GenerateReason, HarnessContentBlock, HarnessEvent, HarnessUsage, ToolResultBlock, ToolUseBlock } from './harness-events';

/** Base64 characters per DATA_BLOCK_DELTA (a multiple of 4, so each slice decodes on its own). */
const DATA_SLICE = 16_384;

type Body<Type extends HarnessEvent['type']> = Omit<Extract<HarnessEvent, { type: Type }>, 'type' | 'id' | 'createdAt'>;

/** `source`: set on every event (a sub-agent's, forwarded: `main/<agentId>`). */
export type HarnessRun = { sessionId: string; agentName?: string; source?: string; now: () => number };

export function createHarnessEncoder(run: HarnessRun): WireEncoder<HarnessEvent> {
  let replyId = '';
  let idPrefix = '0'.repeat(24);
  let counter = 0;
  /** Answers the request brought, echoed together once the last of them is known. */
  let answering = true;
  const confirms: ConfirmResult[] = [];
  const externals: ToolResultBlock[] = [];
  const held: HarnessEvent[] = [];
  const executing = new Set<string>();
  const names = new Map<string, string>();
  let pending: PendingToolCall[] = [];
  /** The current step's calls, and those a permission rule denied. */
  let stepCalls: ToolUseBlock[] = [];
  const stepDenied = new Set<string>();
  let lastMessage: AssistantMessage | undefined;
  /** Images the run's tools made: pushed to the user as data blocks with the final answer. */
  const images: Extract<HarnessContentBlock, { type: 'data' }>[] = [];
  let callSeconds = 0;

  const make = <Type extends HarnessEvent['type']>(type: Type, body: Body<Type>): HarnessEvent =>
    ({
      type,
      id: `${idPrefix}${(counter++).toString(16).padStart(8, '0')}`,
      createdAt: microseconds(run.now()),
      ...(run.source ? { source: run.source } : {}),
      ...body,
    }) as unknown as HarnessEvent;
  /** Each sub-agent's events, told by an encoder of their own with their source. */
  const subagents = new Map<string, WireEncoder<HarnessEvent>>();

  const toolResult = (toolCallId: string, name: string, content: ToolResultContent, state: ToolResultBlock['state']): HarnessEvent[] => {
    const events: HarnessEvent[] = executing.delete(toolCallId) ? [] : [make('TOOL_RESULT_START', { replyId, toolCallId, toolCallName: name })];
    const blocks = typeof content === 'string' ? [{ type: 'text' as const, text: content }] : content;
    blocks.forEach((block, index) => {
      if (block.type === 'text') events.push(make('TOOL_RESULT_TEXT_DELTA', { replyId, toolCallId, toolCallName: name, delta: block.text }));
      else events.push(make('TOOL_RESULT_DATA_DELTA', { replyId, toolCallId, toolCallName: name, data: dataBlock(block, `${toolCallId}-${index}`) }));
    });
    events.push(make('TOOL_RESULT_END', { replyId, toolCallId, toolCallName: name, state }));
    return events;
  };

  /** The echo of the answers, then what was held while they came (the denials' results). */
  const endAnswers = (): HarnessEvent[] => {
    if (!answering) return [];
    answering = false;
    const events: HarnessEvent[] = [];
    if (confirms.length > 0) events.push(make('USER_CONFIRM_RESULT', { replyId, confirmResults: confirms }));
    if (externals.length > 0) events.push(make('EXTERNAL_EXECUTION_RESULT', { replyId, toolResults: externals }));
    if (confirms.length > 0 && confirms.every((confirm) => !confirm.confirmed)) {
      events.push(make('ALL_TOOLS_DENIED', { deniedToolCalls: confirms.map((confirm) => confirm.toolCall) }));
    }
    return [...events, ...held.splice(0)];
  };

  const encode = (event: AgentEvent): HarnessEvent[] => {
    switch (event.type) {
      case 'turn-start':
        replyId = event.turnId;
        idPrefix = (event.turnId.replace(/^turn_/, '') + '0'.repeat(24)).slice(0, 24);
        return [make('AGENT_START', { sessionId: run.sessionId, replyId, name: run.agentName ?? 'assistant', role: 'assistant' })];
      case 'tool-answer':
        names.set(event.toolCallId, event.name);
        if (event.answer.kind === 'permission') confirms.push(confirmOf(event.toolCallId, event.name, event.input, event.answer));
        else externals.push(externalOf(event.toolCallId, event.name, event.answer));
        return [];
      case 'tool-execution-end': {
        if (event.state === 'denied') stepDenied.add(event.toolCallId);
        if (typeof event.content !== 'string') {
          event.content.forEach((block, index) => {
            if (block.type === 'image' && 'data' in block) images.push(dataBlock(block, `${event.toolCallId}-${index}`) as Extract<HarnessContentBlock, { type: 'data' }>);
          });
        }
        const events = toolResult(event.toolCallId, event.name, event.content, event.state);
        if (answering && event.state === 'denied') {
          held.push(...events);
          return [];
        }
        return [...endAnswers(), ...events];
      }
      case 'tool-execution-start':
        executing.add(event.toolCallId);
        return [...endAnswers(), make('TOOL_RESULT_START', { replyId, toolCallId: event.toolCallId, toolCallName: event.name })];
      case 'model-call-start':
        return [...endAnswers(), make('MODEL_CALL_START', { replyId })];
      case 'tool-progress':
        return [
          make('CUSTOM', {
            name: 'task_progress',
            value: { taskId: event.toolCallId, toolCallName: event.name, progress: event.progress, status: 'RUNNING', detail: event.detail },
          }),
        ];
      case 'model-call-end':
        callSeconds += event.durationMs / 1000;
        return [make('MODEL_CALL_END', { replyId, usage: harnessUsage(event.usage, event.durationMs / 1000) })];
      case 'thinking-start':
        return [make('THINKING_BLOCK_START', { replyId, blockId: event.blockId })];
      case 'thinking-delta':
        return [make('THINKING_BLOCK_DELTA', { replyId, blockId: event.blockId, delta: event.delta })];
      case 'thinking-end':
        return [make('THINKING_BLOCK_END', { replyId, blockId: event.blockId })];
      case 'text-start':
        return [make('TEXT_BLOCK_START', { replyId, blockId: event.blockId })];
      case 'text-delta':
        return [make('TEXT_BLOCK_DELTA', { replyId, blockId: event.blockId, delta: event.delta })];
      case 'text-end':
        return [make('TEXT_BLOCK_END', { replyId, blockId: event.blockId })];
      case 'tool-input-start':
        names.set(event.toolCallId, event.name);
        return [make('TOOL_CALL_START', { replyId, toolCallId: event.toolCallId, toolCallName: event.name })];
      case 'tool-input-delta':
        return [make('TOOL_CALL_DELTA', { replyId, toolCallId: event.toolCallId, toolCallName: names.get(event.toolCallId) ?? '', delta: event.delta })];
      case 'tool-input-end':
        return [make('TOOL_CALL_END', { replyId, toolCallId: event.toolCallId, toolCallName: event.name })];
      case 'assistant-message':
        lastMessage = event.message;
        return [];
      case 'iteration-limit':
        return [...endAnswers(), make('EXCEED_MAX_ITERS', { replyId, maxIters: event.maxIterations, currentIter: event.maxIterations })];
      case 'context-compacted':
        // An out-of-band note: the oldest history was summarised to make room.
        return [
          ...endAnswers(),
          make('HINT_BLOCK', {
            replyId,
            blockId: `hint-${counter}`,
            hintSource: 'system',
            hint: `${event.messagesSummarized} earlier messages were summarised to fit the model's context window.`,
          }),
        ];
      case 'turn-suspend': {
        pending = event.pending;
        const asking = pending.filter((call) => call.awaiting === 'permission');
        const external = pending.filter((call) => call.awaiting === 'client');
        const events: HarnessEvent[] = [];
        if (asking.length > 0) events.push(make('REQUIRE_USER_CONFIRM', { replyId, toolCalls: asking.map((call) => toolUse(call, 'asking')) }));
        if (external.length > 0) events.push(make('REQUIRE_EXTERNAL_EXECUTION', { replyId, toolCalls: external.map((call) => toolUse(call, 'pending')) }));
        events.push(
          asking.length > 0
            ? make('REQUEST_STOP', { reason: `${asking.length} tool call(s) need the user's confirmation.`, generateReason: 'PERMISSION_ASKING' })
            : make('REQUEST_STOP', { reason: `${external.length} tool call(s) are to be run by the client.`, generateReason: 'TOOL_SUSPENDED' }),
        );
        return events;
      }
      case 'turn-stop': {
        const events = endAnswers();
        let reason: GenerateReason = 'MODEL_STOP';
        if (event.stopReason === 'tool_use') reason = pending.some((call) => call.awaiting === 'permission') ? 'PERMISSION_ASKING' : 'TOOL_SUSPENDED';
        else if (event.stopReason === 'error') {
          reason = 'INTERRUPTED';
          events.push(make('REQUEST_STOP', { reason: event.error?.message ?? 'The run failed.', generateReason: 'INTERRUPTED' }));
        } else if (event.error?.code === 'budget_spent') {
          // A spent TURN_TOKEN_BUDGET: the run pauses; a next request with the same sessionId goes on.
          reason = 'MIDDLEWARE_STOP_REQUESTED';
          events.push(make('REQUEST_STOP', { reason: event.error.message, generateReason: 'MIDDLEWARE_STOP_REQUESTED' }));
        } else if (event.maxIterationsReached) reason = 'MAX_ITERATIONS';
        // The images the tools made, to the user directly (seed 001's DATA_BLOCK_*), in base64 slices.
        images.forEach((image, index) => {
          const blockId = `data-${index + 1}`;
          events.push(make('DATA_BLOCK_START', { replyId, blockId }));
          if (image.source.type === 'base64') {
            for (let at = 0; at < image.source.data.length; at += DATA_SLICE) {
              events.push(make('DATA_BLOCK_DELTA', { replyId, blockId, delta: image.source.data.slice(at, at + DATA_SLICE) }));
            }
          }
          events.push(make('DATA_BLOCK_END', { replyId, blockId }));
        });
        const at = run.now();
        const metadata: Record<string, unknown> = { agentscope_generate_reason: reason, stop_reason: event.stopReason };
        if (event.error) metadata.error = event.error;
        events.push(
          make('AGENT_RESULT', {
            result: {
              id: uuidOf(idPrefix),
              name: run.agentName ?? 'assistant',
              role: 'ASSISTANT',
              content: [...(lastMessage ? contentOf(lastMessage) : []), ...images],
              metadata: metadata as { agentscope_generate_reason: GenerateReason },
              timestamp: msgTimestamp(at),
              usage: harnessUsage(sumCalls(event.modelCalls), callSeconds),
            },
          }),
          make('AGENT_END', { replyId }),
        );
        return events;
      }
      case 'input-message':
      case 'step-start':
        return endAnswers();
      case 'tool-call':
        stepCalls.push({ id: event.toolCallId, name: event.name, input: event.input, content: null, metadata: {}, state: 'finished' });
        return [];
      case 'step-end': {
        // Every call of the step's batch refused by the session's rules.
        const denied = stepCalls.length > 0 && stepCalls.every((call) => stepDenied.has(call.id));
        const events = denied ? [make('ALL_TOOLS_DENIED', { deniedToolCalls: stepCalls })] : [];
        stepCalls = [];
        stepDenied.clear();
        return events;
      }
      case 'model-call-retry':
        return [];
      case 'subagent-event': {
        let encoder = subagents.get(event.sessionId);
        if (!encoder) {
          encoder = createHarnessEncoder({ sessionId: event.sessionId, agentName: event.source.split('/').pop() ?? 'subagent', source: event.source, now: run.now });
          subagents.set(event.sessionId, encoder);
        }
        return encoder.encode(event.event);
      }
      case 'subagent-exposed':
        return [make('SUBAGENT_EXPOSED', { subagentId: event.subagentId, agentId: event.agentId, sessionId: event.sessionId, label: event.label })];
      default:
        return assertNever(event);
    }
  };
  return { encode };
}

function confirmOf(id: string, name: string, input: Record<string, unknown>, answer: Extract<ToolAnswer, { kind: 'permission' }>): ConfirmResult {
  return { confirmed: answer.granted, toolCall: { id, name, input, content: null, metadata: {}, state: 'asking' }, rules: answer.rules ?? null };
}

function externalOf(id: string, name: string, answer: Extract<ToolAnswer, { kind: 'result' }>): ToolResultBlock {
  const blocks = typeof answer.content === 'string' ? [{ type: 'text' as const, text: answer.content }] : answer.content;
  return {
    id,
    name,
    output: blocks.map((block, index) => (block.type === 'text' ? { type: 'text', text: block.text } : dataBlock(block, `${id}-${index}`))),
    metadata: {},
    state: answer.isError ? 'error' : 'success',
  };
}

function toolUse(call: PendingToolCall, state: ToolUseBlock['state']): ToolUseBlock {
  return { id: call.toolCallId, name: call.name, input: call.input, content: null, metadata: {}, state };
}

function dataBlock(block: Exclude<Exclude<ToolResultContent, string>[number], { type: 'text' }>, id: string): HarnessContentBlock {
  if ('data' in block) return { type: 'data', source: { type: 'base64', media_type: block.mimeType, data: block.data }, id, name: `${id}.${block.mimeType.split('/')[1] ?? 'bin'}` };
  return { type: 'data', source: { type: 'url', url: block.url, mime_type: 'application/octet-stream' }, id, name: block.url.split('/').pop() || id };
}

function contentOf(message: AssistantMessage): HarnessContentBlock[] {
  if (typeof message.content === 'string') return [{ type: 'text', text: message.content }];
  return message.content.map((block): HarnessContentBlock => {
    if (block.type === 'text') return { type: 'text', text: block.text };
    if (block.type === 'thinking') return { type: 'thinking', thinking: block.thinking };
    return { type: 'tool_use', id: block.toolCallId, name: block.name, input: block.input };
  });
}

function sumCalls(calls: { usage: Usage }[]): Usage {
  return calls.reduce((total, call) => addUsage(total, call.usage), emptyUsage());
}

function harnessUsage(usage: Usage, seconds: number): HarnessUsage {
  return {
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    cachedTokens: usage.cachedInputTokens,
    time: Math.round(seconds * 1000) / 1000,
    totalTokens: usage.inputTokens + usage.outputTokens,
  };
}

/** ISO-8601 UTC with microseconds, as the seed writes it. */
function microseconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** `yyyy-MM-dd HH:mm:ss.SSS` (UTC), the seed's `Msg.timestamp`. */
function msgTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}

/** A version-4-shaped UUID from the run's id, for its result message. */
function uuidOf(hex24: string): string {
  const hex = `${hex24}${'0'.repeat(8)}`;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
