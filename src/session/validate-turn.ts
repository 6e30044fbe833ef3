/**
 * The checks of a turn request against the session's own state (docs/turns-api.md), in the
 * contract's order after the body's shape: a running turn, answers that match no pending call (or
 * one twice), answers still owed. Answers are matched to what the session holds, never to what the
 * client echoes. Pure: it reads the state it is given and returns the turn's input or an error.
 */
import type { SystemMessage, UserMessage } from '../api/content';
import type { TurnRequest } from '../api/turn-request';
import type { PendingToolCall, ToolAnswer } from '../agent/events';
import type { ResolvedAnswer } from '../agent/run-turn';
import { ApiError } from '../lib/errors';
import { cut, quoted } from '../lib/quoted';

export type ValidatedTurn = { answers: ResolvedAnswer[]; newMessages: (UserMessage | SystemMessage)[] };

export function validateTurn(request: TurnRequest, pending: PendingToolCall[], runningTurnId: string | undefined): ValidatedTurn {
  if (runningTurnId !== undefined) {
    throw new ApiError(
      409,
      'session_busy',
      'A turn is already running in this session. Wait for its turn_stop, or send the request again with "ifBusy": "enqueue", "interrupt" or "steer".',
      { details: { runningTurnId } },
    );
  }

  const byId = new Map(pending.map((call) => [call.toolCallId, call]));
  const answered = new Map<string, ToolAnswer>();
  const newMessages: (UserMessage | SystemMessage)[] = [];
  for (const message of request.messages) {
    if (message.role === 'user' || message.role === 'system') {
      newMessages.push(message);
      continue;
    }
    const call = byId.get(message.toolCallId);
    const expected = message.role === 'tool' ? 'client' : 'permission';
    if (!call || answered.has(message.toolCallId) || call.awaiting !== expected) {
      throw new ApiError(400, 'unknown_tool_call', unknownCallMessage(message.role, message.toolCallId, call, answered.has(message.toolCallId)), {
        details: { toolCallId: cut(message.toolCallId, 256) },
      });
    }
    answered.set(
      message.toolCallId,
      message.role === 'tool'
        ? { kind: 'result', content: message.content, isError: message.isError ?? false }
        : {
            kind: 'permission',
            granted: message.granted,
            ...(message.reason ? { reason: message.reason } : {}),
            ...(message.input ? { input: message.input } : {}),
            ...(message.rule || message.rules ? { rules: [...(message.rule ? [message.rule] : []), ...(message.rules ?? [])] } : {}),
          },
    );
  }

  const owed = pending.filter((call) => !answered.has(call.toolCallId)).map((call) => call.toolCallId);
  if (owed.length > 0) {
    throw new ApiError(409, 'pending_tool_calls', `This session waits for answers to ${owed.length} tool call(s); send them all in one request.`, {
      details: { pendingToolCallIds: owed },
    });
  }
  // Answers are applied first, in the order of the calls; the request's other messages follow them.
  const answers = pending.map((call) => ({ call, answer: answered.get(call.toolCallId) as ToolAnswer }));
  return { answers, newMessages };
}

function unknownCallMessage(role: 'tool' | 'tool_permission', id: string, call: PendingToolCall | undefined, twice: boolean): string {
  const named = quoted(id, 128);
  if (twice) return `The tool call ${named} is answered twice in this request.`;
  if (!call) return `No pending tool call has the id ${named}.`;
  return role === 'tool'
    ? `The tool call ${named} waits for a permission (tool_permission), not a tool result.`
    : `The tool call ${named} is a client tool: answer it with a tool message, not tool_permission.`;
}
