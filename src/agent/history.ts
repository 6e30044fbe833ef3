/** Helpers over a conversation held in memory during a turn. */
import type { AssistantBlock, AssistantMessage, HistoryMessage, ToolMessage } from '../api/content';
import type { ToolCallIds } from './block-assembler';

/** The turns API (docs/turns-api.md): an assistant message is a plain string when it is text alone, otherwise blocks. */
export function assistantMessage(blocks: AssistantBlock[]): AssistantMessage {
  if (blocks.length === 0) return { role: 'assistant', content: '' };
  const only = blocks[0];
  if (blocks.length === 1 && only?.type === 'text') return { role: 'assistant', content: only.text };
  return { role: 'assistant', content: blocks };
}

/** The tool calls of an assistant message, in order. */
export function toolCallIds(message: AssistantMessage): string[] {
  if (typeof message.content === 'string') return [];
  return message.content.flatMap((block) => (block.type === 'tool_use' ? [block.toolCallId] : []));
}

/** The result of the call `toolCallId` (run here, denied, or the client's), as the history holds it: `isError` only when set. */
export function toolResult(toolCallId: string, { content, isError }: { content: ToolMessage['content']; isError: boolean }): ToolMessage {
  return isError ? { role: 'tool', toolCallId, content, isError } : { role: 'tool', toolCallId, content };
}

/**
 * The tool call ids a turn may not give again: those of `history`, gathered when the model first
 * names a call (most turns name none), or as the session keeps them (`historyIds`: a long agent
 * session holds thousands, which each tool's turn scanned); those the turn adds; and those
 * `usedElsewhere` knows (the loaded messages may be only the latest part of the history; the session
 * knows the rest).
 */
export function usedToolCallIds(history: HistoryMessage[], usedElsewhere?: (id: string) => boolean, historyIds?: () => ReadonlySet<string> | undefined): ToolCallIds {
  let seen: ReadonlySet<string> | undefined;
  const added = new Set<string>();
  const known = () => (seen ??= historyIds?.() ?? callIdsOf(history));
  return { has: (id) => added.has(id) || known().has(id) || (usedElsewhere?.(id) ?? false), add: (id) => added.add(id) };
}

/** Every tool call id of `history`'s assistant messages. */
export function callIdsOf(history: readonly HistoryMessage[]): Set<string> {
  const ids = new Set<string>();
  for (const message of history) addCallIds(ids, message);
  return ids;
}

/** Adds the ids of the tool calls `message` makes (an assistant's), without an array a message. */
export function addCallIds(ids: Set<string>, message: HistoryMessage): void {
  if (message.role !== 'assistant' || typeof message.content === 'string') return;
  for (const block of message.content) if (block.type === 'tool_use') ids.add(block.toolCallId);
}

/**
 * Put a tool result where it belongs: after its assistant message, among that message's results in
 * the order of the calls. Results of one message may arrive in any order (trusted ones first).
 */
export function placeToolResult(messages: HistoryMessage[], result: ToolMessage): void {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message?.role !== 'assistant') continue;
    const calls = toolCallIds(message);
    const rank = calls.indexOf(result.toolCallId);
    if (rank < 0) continue;
    let at = index + 1;
    while (at < messages.length) {
      const next = messages[at];
      if (next?.role !== 'tool' || calls.indexOf(next.toolCallId) < 0 || calls.indexOf(next.toolCallId) > rank) break;
      at++;
    }
    messages.splice(at, 0, result);
    return;
  }
  messages.push(result);
}
