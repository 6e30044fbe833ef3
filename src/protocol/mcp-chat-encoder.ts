/**
 * The MCP door's `chat` tool (docs/mcp.md): a turn told as MCP progress notifications while it runs
 * (its text as it streams, each tool as it is called and ends), then one tool result: the answer's
 * text, and `structuredContent {sessionId, turnId, stopReason, pendingToolCalls}` so that a client
 * can answer what the turn waits for (`answer_tool_call`).
 */
import type { PendingToolCall } from '../agent/events';
import { ignoring, tableEncoder, type WireEncoder } from './encoder';

export type McpChatItem =
  | { kind: 'progress'; message: string }
  | {
      kind: 'result';
      text: string;
      isError: boolean;
      structured: { sessionId: string; turnId: string; stopReason: string; pendingToolCalls: PendingToolCall[]; error?: { code: string; message: string } };
    };

export function createMcpChatEncoder(sessionId: string): WireEncoder<McpChatItem> {
  let text = '';
  let pending: PendingToolCall[] = [];
  return tableEncoder<McpChatItem>({
    'text-delta': (event) => {
      text += event.delta;
      return [{ kind: 'progress', message: event.delta }];
    },
    // A step that ends in tool calls starts the answer's text again: the last step's text is the answer.
    'step-start': () => {
      text = '';
      return [];
    },
    'tool-call': (event) => [{ kind: 'progress', message: `${event.name} ${event.execution === 'client' || event.execution === 'untrusted' ? 'waits for you' : 'runs'}` }],
    'tool-execution-end': (event) => [{ kind: 'progress', message: `${event.name}: ${event.state}` }],
    'turn-suspend': (event) => {
      pending = event.pending;
      return [];
    },
    'turn-stop': (event) => {
      const waiting = pending.map((call) => `${call.name} ${JSON.stringify(call.input)} waits for ${call.awaiting === 'permission' ? 'your permission' : 'your result'} (${call.toolCallId})`);
      const said = [text, ...waiting, ...(event.error ? [event.error.message] : [])].filter((part) => part !== '').join('\n');
      return [
        {
          kind: 'result',
          text: said,
          isError: event.stopReason === 'error',
          structured: { sessionId, turnId: event.turnId, stopReason: event.stopReason, pendingToolCalls: pending, ...(event.error ? { error: event.error } : {}) },
        },
      ];
    },
    ...ignoring(
      'turn-start', 'input-message', 'tool-answer', 'step-end', 'model-call-start', 'model-call-retry', 'model-call-end',
      'text-start', 'text-end', 'thinking-start', 'thinking-delta', 'thinking-end', 'tool-input-start', 'tool-input-delta',
      'tool-input-end', 'tool-execution-start', 'tool-progress', 'subagent-event', 'subagent-exposed', 'iteration-limit',
      'assistant-message', 'context-compacted',
    ),
  });
}
