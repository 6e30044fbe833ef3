/** The Harness door's shapes (docs/harness.md) made from ours: answers, calls, content blocks, usage, times. */
import type { PendingToolCall, ToolAnswer } from '../agent/events';
import { addUsage, emptyUsage, type Usage } from '../agent/usage';
import type { AssistantMessage, ToolResultContent } from '../api/content';
import type { ConfirmResult, HarnessContentBlock, HarnessUsage, ToolResultBlock, ToolUseBlock } from './harness-events';

export function confirmOf(id: string, name: string, input: Record<string, unknown>, answer: Extract<ToolAnswer, { kind: 'permission' }>): ConfirmResult {
  return { confirmed: answer.granted, toolCall: { id, name, input, content: null, metadata: {}, state: 'asking' }, rules: answer.rules ?? null };
}

export function externalOf(id: string, name: string, answer: Extract<ToolAnswer, { kind: 'result' }>): ToolResultBlock {
  const blocks = typeof answer.content === 'string' ? [{ type: 'text' as const, text: answer.content }] : answer.content;
  return {
    id,
    name,
    output: blocks.map((block, index) => (block.type === 'text' ? { type: 'text', text: block.text } : dataBlock(block, `${id}-${index}`))),
    metadata: {},
    state: answer.isError ? 'error' : 'success',
  };
}

export function toolUse(call: PendingToolCall, state: ToolUseBlock['state']): ToolUseBlock {
  return { id: call.toolCallId, name: call.name, input: call.input, content: null, metadata: {}, state };
}

export function dataBlock(block: Exclude<Exclude<ToolResultContent, string>[number], { type: 'text' }>, id: string): HarnessContentBlock {
  if ('data' in block) return { type: 'data', source: { type: 'base64', media_type: block.mimeType, data: block.data }, id, name: `${id}.${block.mimeType.split('/')[1] ?? 'bin'}` };
  return { type: 'data', source: { type: 'url', url: block.url, mime_type: 'application/octet-stream' }, id, name: block.url.split('/').pop() || id };
}

export function contentOf(message: AssistantMessage): HarnessContentBlock[] {
  if (typeof message.content === 'string') return [{ type: 'text', text: message.content }];
  return message.content.map((block): HarnessContentBlock => {
    if (block.type === 'text') return { type: 'text', text: block.text };
    if (block.type === 'thinking') return { type: 'thinking', thinking: block.thinking };
    return { type: 'tool_use', id: block.toolCallId, name: block.name, input: block.input };
  });
}

export function sumCalls(calls: { usage: Usage }[]): Usage {
  return calls.reduce((total, call) => addUsage(total, call.usage), emptyUsage());
}

export function harnessUsage(usage: Usage, seconds: number): HarnessUsage {
  return {
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    cachedTokens: usage.cachedInputTokens,
    time: Math.round(seconds * 1000) / 1000,
    totalTokens: usage.inputTokens + usage.outputTokens,
  };
}

/** ISO-8601 UTC with microseconds, as the protocol writes it. */
export function microseconds(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, -1)}000Z`;
}

/** `yyyy-MM-dd HH:mm:ss.SSS` (UTC), the protocol's `Msg.timestamp`. */
export function msgTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}

/** A version-4-shaped UUID from the run's id, for its result message. */
export function uuidOf(hex24: string): string {
  const hex = `${hex24}${'0'.repeat(8)}`;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
