/**
 * Persistence as a consumer of the event stream: each event that changes the history is written as
 * it happens (synchronously, so the store is never behind what a client has seen). `tool_permission`
 * answers change call state only; they are never stored as messages.
 */
import type { AgentEvent } from '../agent/events';
import { toolResult } from '../agent/history';
import { assertNever } from '../lib/assert-never';
import type { SessionStores } from './store/stores';

export function createTurnRecorder({ history: store, meta, turns }: SessionStores, turnId: string): (event: AgentEvent) => void {
  return (event) => {
    switch (event.type) {
      case 'context-compacted':
        store.compactions.add(turnId, event);
        return;
      case 'input-message':
        store.appendMessage(turnId, event.message);
        return;
      case 'tool-answer':
        if (event.answer.kind === 'result') {
          store.appendToolResult(turnId, toolResult(event.toolCallId, event.answer));
        } else {
          store.setCallState(event.toolCallId, 'untrusted', 'running');
        }
        return;
      case 'assistant-message':
        store.appendAssistant(turnId, event.message);
        return;
      case 'tool-call':
        if (event.execution === 'client' || event.execution === 'untrusted') store.setCallState(event.toolCallId, event.execution, 'waiting');
        else store.setCallState(event.toolCallId, event.execution, 'running');
        return;
      case 'tool-execution-end':
        store.appendToolResult(turnId, toolResult(event.toolCallId, event));
        return;
      case 'turn-stop':
        meta.addUsage(event.usage);
        meta.setCalibration(event.calibration);
        if (event.earlierPartsLeftOut) {
          const seq = store.lastUserSeq();
          if (seq !== undefined) meta.setPartsRefusedBefore(seq);
        }
        turns.endTurn(turnId, event.error?.code === 'cancelled' ? 'cancelled' : 'finished', event.stopReason, event.error?.code, event.at);
        return;
      case 'turn-start':
      case 'step-start':
      case 'step-end':
      case 'model-call-start':
      case 'model-call-retry':
      case 'model-call-end':
      case 'text-start':
      case 'text-delta':
      case 'text-end':
      case 'thinking-start':
      case 'thinking-delta':
      case 'thinking-end':
      case 'tool-input-start':
      case 'tool-input-delta':
      case 'tool-input-end':
      case 'tool-execution-start':
      case 'tool-progress':
      case 'subagent-event':
      case 'subagent-exposed':
      case 'iteration-limit':
      case 'turn-suspend':
        return;
      default:
        assertNever(event);
    }
  };
}
