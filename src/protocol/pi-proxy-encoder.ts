/**
 * `POST /api/stream`'s events: one model call's events as pi-agent-core's proxy events (`start`, the
 * blocks keyed by `contentIndex`, then `done` or `error`, always exactly one of them last). Pure, like
 * every encoder; thinking signatures travel as `contentSignature`.
 */
import type { FinishReason } from '../agent/events';
import { ignoring, tableEncoder, type WireEncoder } from './encoder';
import { toPiUsage } from './pi-convert';
import type { PiProxyEvent } from './pi-events';

export function createPiProxyEncoder(): WireEncoder<PiProxyEvent> {
  const indexes = new Map<string, number>();
  /** Refusal text, for the error a refusal becomes (pi's `done` has no refusal). */
  let text = '';
  return tableEncoder<PiProxyEvent>({
    'model-call-start': () => [{ type: 'start' }],
    'text-start': (event) => {
      indexes.set(event.blockId, event.contentIndex);
      return [{ type: 'text_start', contentIndex: event.contentIndex }];
    },
    'text-delta': (event) => {
      text += event.delta;
      return [{ type: 'text_delta', contentIndex: indexes.get(event.blockId) ?? 0, delta: event.delta }];
    },
    'text-end': (event) => [{ type: 'text_end', contentIndex: indexes.get(event.blockId) ?? 0 }],
    'thinking-start': (event) => {
      indexes.set(event.blockId, event.contentIndex);
      return [{ type: 'thinking_start', contentIndex: event.contentIndex }];
    },
    'thinking-delta': (event) => [{ type: 'thinking_delta', contentIndex: indexes.get(event.blockId) ?? 0, delta: event.delta }],
    'thinking-end': (event) => {
      const end: PiProxyEvent = { type: 'thinking_end', contentIndex: indexes.get(event.blockId) ?? 0 };
      if (event.signature !== undefined) end.contentSignature = event.signature;
      return [end];
    },
    'tool-input-start': (event) => {
      indexes.set(event.blockId, event.contentIndex);
      return [{ type: 'toolcall_start', contentIndex: event.contentIndex, id: event.toolCallId, toolName: event.name }];
    },
    'tool-input-delta': (event) => [{ type: 'toolcall_delta', contentIndex: indexes.get(event.blockId) ?? 0, delta: event.delta }],
    'tool-input-end': (event) => [{ type: 'toolcall_end', contentIndex: indexes.get(event.blockId) ?? 0 }],
    'model-call-end': (event) => {
      const usage = toPiUsage(event.usage);
      if (event.error) {
        return [{ type: 'error', reason: event.error.code === 'cancelled' ? 'aborted' : 'error', errorMessage: event.error.message, usage }];
      }
      if (event.finishReason === 'refusal') {
        return [{ type: 'error', reason: 'error', errorMessage: text === '' ? 'The model refused to answer.' : text, usage }];
      }
      return [{ type: 'done', reason: doneReason(event.finishReason), usage }];
    },
    // One model call's events only: the proxy has no turn, step, tools or history around them.
    ...ignoring(
      'turn-start', 'input-message', 'tool-answer', 'step-start', 'step-end', 'model-call-retry', 'context-compacted',
      'assistant-message', 'tool-call', 'tool-execution-start', 'tool-progress', 'subagent-event', 'subagent-exposed',
      'tool-execution-end', 'iteration-limit', 'turn-suspend', 'turn-stop',
    ),
  });
}

function doneReason(finish: FinishReason | undefined): 'stop' | 'length' | 'toolUse' {
  if (finish === 'tool_use') return 'toolUse';
  if (finish === 'max_tokens') return 'length';
  return 'stop';
}
