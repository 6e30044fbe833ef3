/**
 * The turns API's SSE modes. `delta`: text and thinking as they stream. `message`: each text or thinking
 * block whole, when it ends. Both: `turn_start` first, `tool_call` for every call of a finished model
 * response (never for a call cut off by the output limit), `tool_result` for server tools only,
 * `turn_stop` last. Extra fields beyond the protocol's: `turnId`, `usage`, `error`, `isError`.
 */
import { ignoring, type SseItem, tableEncoder, type WireEncoder } from './encoder';
import { CompactionLog, turnUsage } from './turns-usage';

export function createTurnsSseEncoder(mode: 'delta' | 'message'): WireEncoder<SseItem> {
  const compactions = new CompactionLog();
  return tableEncoder<SseItem>({
    'turn-start': (event) => [{ event: 'turn_start', data: { turnId: event.turnId, model: event.model } }],
    'text-delta': (event) => mode === 'delta' ? [{ event: 'text_delta', data: { delta: event.delta } }] : [],
    'thinking-delta': (event) => mode === 'delta' ? [{ event: 'thinking_delta', data: { delta: event.delta } }] : [],
    'text-end': (event) => {
      if (mode !== 'message' || event.text === '') return [];
      return [{ event: 'text', data: event.incomplete ? { text: event.text, incomplete: true } : { text: event.text } }];
    },
    'thinking-end': (event) => {
      if (mode !== 'message' || (event.thinking === '' && !event.redacted)) return [];
      const data: Record<string, unknown> = { thinking: event.thinking };
      if (event.signature !== undefined) data.signature = event.signature;
      if (event.incomplete) data.incomplete = true;
      return [{ event: 'thinking', data }];
    },
    'tool-call': (event) => [{ event: 'tool_call', data: { toolCallId: event.toolCallId, name: event.name, input: event.input } }],
    'tool-execution-end': (event) => {
      const data: Record<string, unknown> = { toolCallId: event.toolCallId, content: event.content };
      if (event.isError) data.isError = true;
      return [{ event: 'tool_result', data }];
    },
    'turn-stop': (event) => {
      const data: Record<string, unknown> = { stopReason: event.stopReason, turnId: event.turnId, usage: turnUsage(event.usage, event.modelCalls) };
      if (event.error) data.error = event.error;
      if (event.maxIterationsReached) data.maxIterationsReached = true;
      compactions.addTo(data);
      return [{ event: 'turn_stop', data }];
    },
    'context-compacted': (event) => {
      compactions.record(event);
      return [];
    },
    ...ignoring(
      'input-message', 'tool-answer', 'step-start', 'step-end', 'model-call-start', 'model-call-retry',
      'model-call-end', 'text-start', 'thinking-start', 'tool-input-start', 'tool-input-delta', 'tool-input-end',
      'assistant-message', 'tool-execution-start', 'tool-progress', 'subagent-event', 'subagent-exposed',
      'iteration-limit', 'turn-suspend',
    ),
  });
}
