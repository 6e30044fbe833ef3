/**
 * A tool result longer than the bound goes to the model as its head and tail with a note of what was
 * cut; the stored result stays whole.
 */
import type { HistoryMessage, ToolResultContent } from '../../api/content';

/** The messages, each tool result that was shortened a copy; every other message the same object (a provider keeps what it made of it). */
export function shortenToolResults(messages: HistoryMessage[], maxChars: number): HistoryMessage[] {
  return messages.map((message) => {
    if (message.role !== 'tool') return message;
    const content = shortenContent(message.content, maxChars);
    return content === message.content ? message : { ...message, content };
  });
}

/** The content, or the same content when nothing in it is too long. */
function shortenContent(content: ToolResultContent, maxChars: number): ToolResultContent {
  if (typeof content === 'string') return shorten(content, maxChars);
  if (!content.some((block) => block.type === 'text' && block.text.length > maxChars)) return content;
  return content.map((block) => (block.type === 'text' ? { ...block, text: shorten(block.text, maxChars) } : block));
}

export function shorten(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const half = Math.floor(maxChars / 2);
  const cut = text.length - 2 * half;
  return `${text.slice(0, half)}\n[… ${cut} characters of this tool result were cut here; it is stored whole …]\n${text.slice(text.length - half)}`;
}
