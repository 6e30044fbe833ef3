/**
 * The turns API's `stream: "none"`: one JSON body at the end, `{stopReason, messages}`, where `messages`
 * is what the agent added to the history in this turn (its assistant messages and the results of the
 * server tools it ran or denied), in history order: a batch's results in the order of its calls.
 */
import type { AssistantMessage, ToolMessage } from '../api/content';
import { ignoring, tableEncoder, type WireEncoder } from './encoder';
import { CompactionLog, turnUsage, type CompactionReport } from './turns-usage';

export type TurnJsonBody = {
  stopReason: string;
  messages: (AssistantMessage | ToolMessage)[];
  turnId: string;
  usage: ReturnType<typeof turnUsage>;
  error?: { code: string; message: string };
  maxIterationsReached?: true;
  compacted?: CompactionReport[];
};

type Entry = { message?: AssistantMessage | ToolMessage; toolCallId?: string };

export function createTurnsJsonEncoder(): WireEncoder<TurnJsonBody> {
  // Results fill the slot their call took when it was made (or answered), whatever order they end in.
  const entries: Entry[] = [];
  const compactions = new CompactionLog();
  return tableEncoder<TurnJsonBody>({
    'assistant-message': (event) => {
      entries.push({ message: event.message });
      return [];
    },
    'tool-call': (event) => {
      entries.push({ toolCallId: event.toolCallId });
      return [];
    },
    'tool-answer': (event) => {
      if (event.answer.kind === 'permission') entries.push({ toolCallId: event.toolCallId });
      return [];
    },
    'tool-execution-end': (event) => {
      const message: ToolMessage = { role: 'tool', toolCallId: event.toolCallId, content: event.content };
      if (event.isError) message.isError = true;
      const slot = entries.find((entry) => entry.toolCallId === event.toolCallId && !entry.message);
      if (slot) slot.message = message;
      else entries.push({ message });
      return [];
    },
    'context-compacted': (event) => {
      compactions.record(event);
      return [];
    },
    'turn-stop': (event) => {
      const body: TurnJsonBody = {
        stopReason: event.stopReason,
        messages: entries.flatMap((entry) => (entry.message ? [entry.message] : [])),
        turnId: event.turnId,
        usage: turnUsage(event.usage, event.modelCalls),
      };
      if (event.error) body.error = event.error;
      if (event.maxIterationsReached) body.maxIterationsReached = true;
      compactions.addTo(body);
      return [body];
    },
    ...ignoring(
      'turn-start', 'input-message', 'step-start', 'step-end', 'model-call-start', 'model-call-retry',
      'model-call-end', 'text-start', 'text-delta', 'text-end', 'thinking-start', 'thinking-delta', 'thinking-end',
      'tool-input-start', 'tool-input-delta', 'tool-input-end', 'tool-execution-start', 'tool-progress',
      'subagent-event', 'subagent-exposed', 'iteration-limit', 'turn-suspend',
    ),
  });
}
