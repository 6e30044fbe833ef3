/**
 * An AG-UI run as a turn request (docs/pi-and-agui.md). `HttpAgent` sends the whole conversation on
 * every run, so the run brings only what the session has not taken yet:
 * - user, system and developer messages whose ids the session has not seen (the ids it took are
 *   remembered in SQLite);
 * - tool messages that answer a call the session waits for the client to run;
 * - resume entries that answer a call waiting for the user's permission (`resolved` with
 *   `{approved, reason?}`; `cancelled` is a denial).
 * What the agent said (assistant and reasoning messages) is never read back: the session holds it.
 * A run that brings nothing new while the thread's last message is the user's, unanswered (its turn
 * failed), answers that message again: a client's retry after `RUN_ERROR` sends the same messages.
 * Pure: it reads the state it is given. The request it makes is checked like any turn's.
 */
import { permissionPayloadSchema, type AguiContent, type RunAgentInput } from '../api/agui-request';
import type { ImageBlock, TextBlock } from '../api/content';
import { messageId } from '../api/message-ids';
import type { PendingToolCall } from '../agent/events';
import { turnRequestSchema, type InputMessage, type TurnRequest } from '../api/turn-request';
import { ApiError, invalidRequest } from '../lib/errors';
import type { SessionStores } from './store/stores';

export type AguiTurn = { request: TurnRequest; newIds: string[] };

/**
 * A run's request, read from the session's state when the launcher asks for it (so that nothing
 * slips in between), and `taken()` once the turn started: the next run's copies of its messages are
 * not new.
 */
export function aguiRun(input: RunAgentInput, { meta, history, side }: SessionStores): { request: () => TurnRequest; taken: () => void } {
  let newIds: string[] = [];
  return {
    request: () => {
      const exists = meta.exists();
      const leaf = exists ? history.branches.activeLeaf() : null;
      const unanswered = leaf !== null && history.messageAt(leaf)?.message.role === 'user' ? messageId(leaf) : undefined;
      const turn = aguiTurn(input, exists ? history.pendingCalls() : [], (ids) => side.seenMessageIds(ids), unanswered);
      newIds = turn.newIds;
      return turn.request;
    },
    taken: () => side.rememberMessageIds(newIds),
  };
}

/** `unanswered`: the id of the thread's last message when it is the user's and unanswered. */
export function aguiTurn(input: RunAgentInput, pending: PendingToolCall[], seen: (ids: string[]) => Set<string>, unanswered?: string): AguiTurn {
  const known = seen(input.messages.map((message) => message.id));
  const waiting = new Map(pending.map((call) => [call.toolCallId, call]));
  const messages: InputMessage[] = [];
  const newIds: string[] = [];
  for (const message of input.messages) {
    if (known.has(message.id)) continue;
    switch (message.role) {
      case 'user':
        messages.push({ role: 'user', content: typeof message.content === 'string' ? message.content : message.content.map(block) });
        newIds.push(message.id);
        break;
      case 'system':
      case 'developer':
        messages.push({ role: 'system', content: message.content });
        newIds.push(message.id);
        break;
      case 'tool':
        // Only an answer the session waits for; a result it already holds comes back on every run.
        if (waiting.get(message.toolCallId)?.awaiting !== 'client') break;
        messages.push({
          role: 'tool',
          toolCallId: message.toolCallId,
          content: message.error !== undefined && isEmpty(message.content) ? message.error : toolContent(message.content),
          ...(message.error !== undefined ? { isError: true } : {}),
        });
        newIds.push(message.id);
        break;
      default:
        break;
    }
  }
  for (const entry of input.resume ?? []) {
    if (entry.status === 'cancelled') {
      messages.push({ role: 'tool_permission', toolCallId: entry.interruptId, granted: false });
      continue;
    }
    const payload = permissionPayloadSchema.safeParse(entry.payload);
    if (!payload.success) {
      throw new ApiError(400, 'invalid_resume', `The resume entry for ${entry.interruptId} is not valid: ${payload.error.issues[0]?.message.replace(/\.$/, '')}.`);
    }
    messages.push({
      role: 'tool_permission',
      toolCallId: entry.interruptId,
      granted: payload.data.approved,
      ...(payload.data.reason ? { reason: payload.data.reason } : {}),
    });
  }
  if (messages.length === 0 && unanswered === undefined) {
    throw new ApiError(400, 'nothing_to_run', 'The run brings no message this thread has not seen, and no answer to a call it waits for.');
  }

  const tools = (input.tools ?? []).map((tool) => ({
    name: tool.name,
    ...(tool.description ? { description: tool.description } : {}),
    ...(tool.parameters !== undefined ? { parameters: tool.parameters } : {}),
  }));
  // The same checks as any turn's body: sizes, names, schemas. `delta` is the mode the turn is
  // followed in afterwards (GET .../events); this run's own stream is AG-UI's.
  const again = messages.length === 0 ? { parentId: unanswered } : {};
  const parsed = turnRequestSchema().safeParse({ messages, ...again, stream: 'delta', ...(tools.length > 0 ? { tools } : {}) });
  if (!parsed.success) throw invalidRequest('The run', parsed.error.issues);
  return { request: parsed.data, newIds };
}

function block(part: Exclude<AguiContent, string>[number]): TextBlock | ImageBlock {
  if (part.type === 'text') return { type: 'text', text: part.text };
  if (part.source.type === 'url') return { type: 'image', url: part.source.value };
  return { type: 'image', mimeType: part.source.mimeType, data: part.source.value };
}

function toolContent(content: AguiContent): string | (TextBlock | ImageBlock)[] {
  return typeof content === 'string' ? content : content.map(block);
}

function isEmpty(content: AguiContent): boolean {
  return typeof content === 'string' ? content === '' : content.length === 0;
}
