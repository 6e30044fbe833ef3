/**
 * Compaction: when the next prompt would pass the budget, the oldest part of the history (after the
 * previous summary) is summarised by the model in a side call, and the prompt becomes system +
 * summary + the recent messages. The cut falls only where a user message begins, so a tool call is
 * never separated from its result; a new summary folds in the previous one (a summary of summaries).
 */
import type { HistoryMessage, UserMessage } from '../../api/content';
import type { ModelHandle } from '../../providers/types';
import { sideCall, type SideCallResult } from '../side-call';
import { estimateMessageTokens } from './token-estimate';

export const SUMMARY_SYSTEM_PROMPT =
  'You summarise conversations for an assistant that will continue them. Write a compact summary of ' +
  'the conversation below: the user’s goals and facts they gave, decisions made, tool results that ' +
  'still matter, and open questions. Keep names, numbers and identifiers exactly. Answer with the summary only.';

export type Summary = { text: string; messages: number };

const SUMMARY_HEADER = /^\[Summary of the earlier conversation, (\d+) messages\]\n/;

/** The summary as the first message of a prompt. */
export function summaryMessage(summary: Summary): UserMessage {
  return { role: 'user', content: `[Summary of the earlier conversation, ${summary.messages} messages]\n${summary.text}` };
}

/** How many messages a prompt's first message stands for, when it is a summary (see `summaryMessage`). */
export function summarizedCount(message: HistoryMessage | undefined): number | undefined {
  if (message?.role !== 'user' || typeof message.content !== 'string') return undefined;
  const header = SUMMARY_HEADER.exec(message.content);
  return header ? Number(header[1]) : undefined;
}

/**
 * The index of the first message to keep so that what is kept fits `keepTokens`; 0 when nothing can
 * be summarised (no user message to cut at after the first).
 */
export function chooseCut(messages: HistoryMessage[], keepTokens: number): number {
  let kept = 0;
  let cut = 0;
  for (let index = messages.length - 1; index > 0; index--) {
    kept += estimateMessageTokens(messages[index]!);
    if (messages[index]!.role === 'user') {
      cut = index;
      if (kept >= keepTokens) break;
    }
  }
  // Keep at least the latest user message and what follows it.
  return cut;
}

export function transcript(previous: Summary | undefined, messages: HistoryMessage[]): string {
  const lines: string[] = [];
  if (previous) lines.push(`Summary so far (${previous.messages} messages):\n${previous.text}\n`);
  for (const message of messages) lines.push(`${message.role}: ${render(message)}`);
  return lines.join('\n');
}

/** The side call: the model asked for a summary of the transcript. */
export function summarize(handle: ModelHandle, previous: Summary | undefined, messages: HistoryMessage[], signal: AbortSignal): Promise<SideCallResult> {
  return sideCall(handle, 'summary', SUMMARY_SYSTEM_PROMPT, transcript(previous, messages), signal);
}

function render(message: HistoryMessage): string {
  if (typeof message.content === 'string') return message.content;
  return message.content
    .map((block) => {
      switch (block.type) {
        case 'text':
          return block.text;
        case 'thinking':
          return '';
        case 'tool_use':
          return `[called ${block.name} ${JSON.stringify(block.input)}]`;
        default:
          return '[image]';
      }
    })
    .filter(Boolean)
    .join(' ');
}
