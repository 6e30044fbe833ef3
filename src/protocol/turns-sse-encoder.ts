/**
 * Seed 000's SSE modes. `delta`: text and thinking as they stream. `message`: each text or thinking
 * block whole, when it ends. Both: `turn_start` first, `tool_call` for every call of a finished model
 * response (never for a call cut off by the output limit), `tool_result` for server tools only,
 * `turn_stop` last. Extra fields beyond the seed's: `turnId`, `usage`, `error`, `isError`.
 */
import type { AgentEvent } from '../agent/events';
import { assertNever } from '../lib/assert-never';
import type { SseItem, WireEncoder } from './encoder';
import { CompactionLog, turnUsage } from './turns-usage';

export function createTurnsSseEncoder(mode: 'delta' | 'message'): WireEncoder<SseItem> {
  const compactions = new CompactionLog();
  return {
    encode(event: AgentEvent): SseItem[] {
      switch (event.type) {
        case 'turn-start':
          return [{ event: 'turn_start', data: { turnId: event.turnId, model: event.model } }];
        case 'text-delta':
          return mode === 'delta' ? [{ event: 'text_delta', data: { delta: event.delta } }] : [];
        case 'thinking-delta':
          return mode === 'delta' ? [{ event: 'thinking_delta', data: { delta: event.delta } }] : [];
        case 'text-end':
          if (mode !== 'message' || event.text === '') return [];
          return [{ event: 'text', data: event.incomplete ? { text: event.text, incomplete: true } : { text: event.text } }];
        case 'thinking-end': {
          if (mode !== 'message' || (event.thinking === '' && !event.redacted)) return [];
          const data: Record<string, unknown> = { thinking: event.thinking };
          if (event.signature !== undefined) data.signature = event.signature;
          if (event.incomplete) data.incomplete = true;
          return [{ event: 'thinking', data }];
        }
        case 'tool-call':
          return [{ event: 'tool_call', data: { toolCallId: event.toolCallId, name: event.name, input: event.input } }];
        case 'tool-execution-end': {
          const data: Record<string, unknown> = { toolCallId: event.toolCallId, content: event.content };
          if (event.isError) data.isError = true;
          return [{ event: 'tool_result', data }];
        }
        case 'turn-stop': {
          const data: Record<string, unknown> = { stopReason: event.stopReason, turnId: event.turnId, usage: turnUsage(event.usage, event.modelCalls) };
          if (event.error) data.error = event.error;
          if (event.maxIterationsReached) data.maxIterationsReached = true;
          compactions.addTo(data);
          return [{ event: 'turn_stop', data }];
        }
        case 'context-compacted':
          compactions.record(event);
          return [];
        case 'input-message':
        case 'tool-answer':
        case 'step-start':
        case 'step-end':
        case 'model-call-start':
        case 'model-call-retry':
        case 'model-call-end':
        case 'text-start':
        case 'thinking-start':
        case 'tool-input-start':
        case 'tool-input-delta':
        case 'tool-input-end':
        case 'assistant-message':
        case 'tool-execution-start':
        case 'tool-progress':
        case 'subagent-event':
        case 'subagent-exposed':
        case 'iteration-limit':
        case 'turn-suspend':
          return [];
        default:
          return assertNever(event);
      }
    },
  };
}
