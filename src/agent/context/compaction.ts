/**
 * Compaction: when the next prompt would pass the budget, the oldest part of the history (after the
 * previous summary) is summarised by the model in a side call, and the prompt becomes system +
 * summary + the recent messages. The cut falls only where a user message begins, so a tool call is
 * never separated from its result; a new summary folds in the previous one (a summary of summaries).
 * The transcript the summary is made from fits the model's budget: a message longer than the window
 * (a pasted document) is sent as its beginning and its end, or it would fail every summary, and so
 * every later turn of its session.
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
 * be summarised (no user message to cut at after the first). The latest user message and what
 * follows it are always kept; an earlier exchange that would pass the budget is summarised, not kept
 * (a document pasted a few turns ago would otherwise stay, and the prompt not fit).
 */
export function chooseCut(messages: HistoryMessage[], keepTokens: number): number {
  let kept = 0;
  let cut = 0;
  for (let index = messages.length - 1; index > 0; index--) {
    kept += estimateMessageTokens(messages[index]!);
    if (messages[index]!.role !== 'user') continue;
    if (kept > keepTokens && cut > 0) break;
    cut = index;
    if (kept >= keepTokens) break;
  }
  return cut;
}

/** The transcript of what a summary covers, within `maxChars`: the longest lines shortened first. */
export function transcript(previous: Summary | undefined, messages: HistoryMessage[], maxChars = Infinity): string {
  const lines: string[] = [];
  if (previous) lines.push(`Summary so far (${previous.messages} messages):\n${previous.text}\n`);
  for (const message of messages) lines.push(`${message.role}: ${render(message)}`);
  const cap = lineCap(lines.map((line) => line.length), maxChars - lines.length);
  return lines.map((line) => (line.length > cap ? shortened(line, cap) : line)).join('\n');
}

/** The longest a line may be so that all fit in `chars`: every line shorter stays whole. */
function lineCap(lengths: number[], chars: number): number {
  if (lengths.reduce((sum, length) => sum + length, 0) <= chars) return Infinity;
  let low = 0;
  let high = lengths.reduce((longest, length) => Math.max(longest, length), 0);
  while (low < high) {
    const cap = Math.ceil((low + high) / 2);
    if (lengths.reduce((sum, length) => sum + Math.min(length, cap + LEFT_OUT_MARK), 0) <= chars) low = cap;
    else high = cap - 1;
  }
  return Math.max(low, SHORTEST_LINE);
}

/** Room for the mark a shortened line carries. */
const LEFT_OUT_MARK = 40;

/** A shortened line keeps at least this much of its beginning and end, however many lines share the budget. */
const SHORTEST_LINE = 200;

/** A line's beginning and end, with what lies between told by its length. */
function shortened(line: string, cap: number): string {
  const head = Math.ceil((cap * 2) / 3);
  const tail = cap - head;
  return `${line.slice(0, head)} [… ${line.length - cap} characters left out …] ${line.slice(line.length - tail)}`;
}

/** The side call: the model asked for a summary of a transcript (`transcript`). */
export function summarize(handle: ModelHandle, text: string, signal: AbortSignal): Promise<SideCallResult> {
  return sideCall(handle, 'summary', SUMMARY_SYSTEM_PROMPT, text, signal);
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
