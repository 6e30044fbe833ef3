/**
 * A conversation's title (the chat protocol's `conversation_title_update`): after the first exchange, the
 * model names the conversation in a side call. Platform-free; the session decides when and stores it.
 */
import type { HistoryMessage } from '../api/content';
import type { ModelHandle } from '../providers/types';
import { transcript } from './context/compaction';
import { sideCall } from './side-call';
import type { TurnError } from './events';
import type { Usage } from './usage';

export const TITLE_SYSTEM_PROMPT =
  'You name conversations. Write a title of at most six words for the conversation below, in the ' +
  'language the user wrote in. Answer with the title only: no quotes, no final punctuation.';

/** Long enough for any title a model gives; a longer answer is cut at a word. */
export const TITLE_MAX_CHARS = 80;
/** How much of each message the title prompt quotes: the start of a conversation names it. */
const QUOTED_CHARS = 1000;

export type TitleResult = { ok: true; title: string; usage: Usage } | { ok: false; error: TurnError; usage: Usage };

export async function makeTitle(handle: ModelHandle, exchange: HistoryMessage[], signal: AbortSignal): Promise<TitleResult> {
  const result = await sideCall(handle, 'title', TITLE_SYSTEM_PROMPT, titlePrompt(exchange), signal);
  if (!result.ok) return result;
  const title = cleanTitle(result.text);
  if (title === '') return { ok: false, error: { code: 'empty_answer', message: 'The model gave an empty title.' }, usage: result.usage };
  return { ok: true, title, usage: result.usage };
}

/** The exchange as a transcript, thinking and tool traffic left out, each message cut short. */
export function titlePrompt(exchange: HistoryMessage[]): string {
  const spoken = exchange.filter((message) => message.role === 'user' || message.role === 'assistant');
  return transcript(undefined, spoken)
    .split('\n')
    .map((line) => (line.length > QUOTED_CHARS ? `${line.slice(0, QUOTED_CHARS)}…` : line))
    .join('\n');
}

/** The first line, without the quotes, labels and end punctuation models add, at most 80 characters. */
export function cleanTitle(text: string): string {
  let title = (text.trim().split('\n')[0] ?? '').trim();
  title = title.replace(/^(title|标题)\s*[:：]\s*/i, '');
  title = title.replace(/^["'“‘«「『*#\s]+|["'”’»」』*\s]+$/g, '');
  title = title.replace(/[.。!！?？;；:：,，\s]+$/, '');
  if (title.length <= TITLE_MAX_CHARS) return title;
  const cut = title.slice(0, TITLE_MAX_CHARS);
  const space = cut.lastIndexOf(' ');
  return (space > TITLE_MAX_CHARS / 2 ? cut.slice(0, space) : cut).trimEnd();
}
