/**
 * AG-UI (`@ag-ui/core` 1.0) events of a turn, for `POST /ag-ui` (docs/pi-and-agui.md): `RUN_STARTED`,
 * text as `TEXT_MESSAGE_*` (one assistant message per model call), thinking as a `REASONING_*` span
 * and message per block, calls as `TOOL_CALL_*` under their message, server tools' results as
 * `TOOL_CALL_RESULT`, and one terminal event:
 * - `RUN_FINISHED` with the `interrupt` outcome when calls wait for the user's permission, one
 *   interrupt per call, its id the call's id (answered by `resume` on the next run);
 * - `RUN_FINISHED` with `success` otherwise, naming the client calls left to run in
 *   `pendingToolCallIds` (answered by tool messages on the next run); `cancelled` for a cancel;
 * - `RUN_ERROR` for a failed turn.
 * Usage is per model, in AG-UI's own accounting (which is ours). Pure: ids derive from the events.
 */
import type { ModelCallUsage, PendingToolCall } from '../agent/events';
import { addUsage, emptyUsage, type Usage } from '../agent/usage';
import type { ToolResultContent } from '../api/content';
import { ignoring, tableEncoder, type WireEncoder } from './encoder';
import type { AguiContentPart, AguiEvent, AguiInterrupt, AguiTokenUsage } from './agui-events';

/** The JSON Schema of an answer to a permission interrupt, so a front-end can build its form. */
const PERMISSION_ANSWER = {
  type: 'object',
  properties: { approved: { type: 'boolean' }, reason: { type: 'string' } },
  required: ['approved'],
};

export const aguiMessageId = (callId: string) => `assistant-${callId}`;

export function createAguiEncoder(run: { threadId: string; runId: string }): WireEncoder<AguiEvent> {
  const messageOfBlock = new Map<string, string>();
  let pending: PendingToolCall[] = [];
  return tableEncoder<AguiEvent>({
    'turn-start': () => [{ type: 'RUN_STARTED', threadId: run.threadId, runId: run.runId }],
    'text-start': (event) => {
      const messageId = aguiMessageId(event.callId);
      messageOfBlock.set(event.blockId, messageId);
      return [{ type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' }];
    },
    'text-delta': (event) => [{ type: 'TEXT_MESSAGE_CONTENT', messageId: messageOfBlock.get(event.blockId) ?? '', delta: event.delta }],
    'text-end': (event) => [{ type: 'TEXT_MESSAGE_END', messageId: messageOfBlock.get(event.blockId) ?? '' }],
    'thinking-start': (event) => {
      const messageId = `reasoning-${event.blockId}`;
      return [
        { type: 'REASONING_START', messageId },
        { type: 'REASONING_MESSAGE_START', messageId, role: 'reasoning' },
      ];
    },
    'thinking-delta': (event) => [{ type: 'REASONING_MESSAGE_CONTENT', messageId: `reasoning-${event.blockId}`, delta: event.delta }],
    'thinking-end': (event) => {
      const messageId = `reasoning-${event.blockId}`;
      return [
        { type: 'REASONING_MESSAGE_END', messageId },
        { type: 'REASONING_END', messageId },
      ];
    },
    'tool-input-start': (event) => [{ type: 'TOOL_CALL_START', toolCallId: event.toolCallId, toolCallName: event.name, parentMessageId: aguiMessageId(event.callId) }],
    'tool-input-delta': (event) => [{ type: 'TOOL_CALL_ARGS', toolCallId: event.toolCallId, delta: event.delta }],
    'tool-input-end': (event) => [{ type: 'TOOL_CALL_END', toolCallId: event.toolCallId }],
    'tool-execution-end': (event) => [{ type: 'TOOL_CALL_RESULT', messageId: `tool-${event.toolCallId}`, toolCallId: event.toolCallId, content: aguiContent(event.content), role: 'tool' }],
    'tool-progress': (event) => [{ type: 'CUSTOM', name: 'task_progress', value: { toolCallId: event.toolCallId, toolName: event.name, progress: event.progress, detail: event.detail } }],
    'turn-suspend': (event) => {
      pending = event.pending;
      return [];
    },
    'turn-stop': (event) => {
      if (event.stopReason === 'error' && event.error?.code !== 'cancelled') {
        return [{ type: 'RUN_ERROR', message: event.error?.message ?? 'The turn failed.', code: event.error?.code ?? 'error' }];
      }
      const finished = { type: 'RUN_FINISHED' as const, threadId: run.threadId, runId: run.runId, result: { turnId: event.turnId, stopReason: event.stopReason }, usage: usageByModel(event.modelCalls) };
      if (event.stopReason === 'error') return [{ ...finished, outcome: { type: 'cancelled' } }];
      const asking = pending.filter((call) => call.awaiting === 'permission');
      if (asking.length > 0) return [{ ...finished, outcome: { type: 'interrupt', interrupts: asking.map(interruptOf) } }];
      const clientCalls = pending.map((call) => call.toolCallId);
      return [{ ...finished, outcome: clientCalls.length > 0 ? { type: 'success', pendingToolCallIds: clientCalls } : { type: 'success' } }];
    },
    ...ignoring(
      'input-message', 'tool-answer', 'step-start', 'step-end', 'model-call-start', 'model-call-retry',
      'model-call-end', 'context-compacted', 'assistant-message', 'tool-call', 'tool-execution-start',
      'iteration-limit', 'subagent-event', 'subagent-exposed',
    ),
  });
}

function interruptOf(call: PendingToolCall): AguiInterrupt {
  return {
    id: call.toolCallId,
    reason: 'tool_permission',
    message: `Allow the tool ${call.name} to run with these arguments?`,
    toolCallId: call.toolCallId,
    responseSchema: PERMISSION_ANSWER,
    metadata: { toolName: call.name, input: call.input },
  };
}

function aguiContent(content: ToolResultContent): string | AguiContentPart[] {
  if (typeof content === 'string') return content;
  return content.map((block): AguiContentPart => {
    if (block.type === 'text') return { type: 'text', text: block.text };
    return 'data' in block ? { type: 'image', source: { type: 'data', value: block.data, mimeType: block.mimeType } } : { type: 'image', source: { type: 'url', value: block.url } };
  });
}

/** One entry per model, as AG-UI asks: a run that used two models keeps them apart. */
function usageByModel(calls: ModelCallUsage[]): AguiTokenUsage[] {
  const byModel = new Map<string, Usage>();
  for (const call of calls) byModel.set(call.model, addUsage(byModel.get(call.model) ?? emptyUsage(), call.usage));
  return [...byModel].map(([id, usage]) => {
    const at = id.indexOf(':');
    return {
      provider: id.slice(0, at),
      model: id.slice(at + 1),
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      totalTokens: usage.inputTokens + usage.outputTokens,
      reasoningTokens: usage.reasoningTokens,
      cachedInputTokens: usage.cachedInputTokens,
      cacheWriteInputTokens: usage.cacheWriteInputTokens,
    };
  });
}
