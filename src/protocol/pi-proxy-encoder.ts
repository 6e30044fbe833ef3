/**
 * `POST /api/stream`'s events: one model call's events as pi-agent-core's proxy events (`start`, the
 * blocks keyed by `contentIndex`, then `done` or `error`, always exactly one of them last). Pure, like
 * every encoder; thinking signatures travel as `contentSignature`.
 */
import type { AgentEvent, FinishReason } from '../agent/events';
import { assertNever } from '../lib/assert-never';
import type { WireEncoder } from './encoder';
import { toPiUsage } from './pi-convert';
import type { PiProxyEvent } from './pi-events';

export function createPiProxyEncoder(): WireEncoder<PiProxyEvent> {
  const indexes = new Map<string, number>();
  /** Refusal text, for the error a refusal becomes (pi's `done` has no refusal). */
  let text = '';
  return {
    encode(event: AgentEvent): PiProxyEvent[] {
      switch (event.type) {
        case 'model-call-start':
          return [{ type: 'start' }];
        case 'text-start':
          indexes.set(event.blockId, event.contentIndex);
          return [{ type: 'text_start', contentIndex: event.contentIndex }];
        case 'text-delta':
          text += event.delta;
          return [{ type: 'text_delta', contentIndex: indexes.get(event.blockId) ?? 0, delta: event.delta }];
        case 'text-end':
          return [{ type: 'text_end', contentIndex: indexes.get(event.blockId) ?? 0 }];
        case 'thinking-start':
          indexes.set(event.blockId, event.contentIndex);
          return [{ type: 'thinking_start', contentIndex: event.contentIndex }];
        case 'thinking-delta':
          return [{ type: 'thinking_delta', contentIndex: indexes.get(event.blockId) ?? 0, delta: event.delta }];
        case 'thinking-end': {
          const end: PiProxyEvent = { type: 'thinking_end', contentIndex: indexes.get(event.blockId) ?? 0 };
          if (event.signature !== undefined) end.contentSignature = event.signature;
          return [end];
        }
        case 'tool-input-start':
          indexes.set(event.blockId, event.contentIndex);
          return [{ type: 'toolcall_start', contentIndex: event.contentIndex, id: event.toolCallId, toolName: event.name }];
        case 'tool-input-delta':
          return [{ type: 'toolcall_delta', contentIndex: indexes.get(event.blockId) ?? 0, delta: event.delta }];
        case 'tool-input-end':
          return [{ type: 'toolcall_end', contentIndex: indexes.get(event.blockId) ?? 0 }];
        case 'model-call-end': {
          const usage = toPiUsage(event.usage);
          if (event.error) {
            return [{ type: 'error', reason: event.error.code === 'cancelled' ? 'aborted' : 'error', errorMessage: event.error.message, usage }];
          }
          if (event.finishReason === 'refusal') {
            return [{ type: 'error', reason: 'error', errorMessage: text === '' ? 'The model refused to answer.' : text, usage }];
          }
          return [{ type: 'done', reason: doneReason(event.finishReason), usage }];
        }
        // One model call's events only: the proxy has no turn, step, tools or history around them.
        case 'turn-start':
        case 'input-message':
        case 'tool-answer':
        case 'step-start':
        case 'step-end':
        case 'model-call-retry':
        case 'context-compacted':
        case 'assistant-message':
        case 'tool-call':
        case 'tool-execution-start':
        case 'tool-progress':
        case 'subagent-event':
        case 'subagent-exposed':
        case 'tool-execution-end':
        case 'iteration-limit':
        case 'turn-suspend':
        case 'turn-stop':
          return [];
        default:
          return assertNever(event);
      }
    },
  };
}

function doneReason(finish: FinishReason | undefined): 'stop' | 'length' | 'toolUse' {
  if (finish === 'tool_use') return 'toolUse';
  if (finish === 'max_tokens') return 'length';
  return 'stop';
}
