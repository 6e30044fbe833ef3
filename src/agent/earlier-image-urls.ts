/**
 * A prompt without the images it only links to from earlier in the conversation.
 *
 * An image given by URL is fetched by the provider on every call that sends it, and the history
 * goes with every call. When the URL stops answering (a presigned link that expired, a page taken
 * down), the provider refuses the whole request, every later turn of the session with it. So a call
 * the provider refused is sent once more with each such image of an earlier exchange replaced by a
 * line that says so (`model-call.ts`). The images from the last user message on stay (the input
 * in progress, and what its tool calls returned): a link the user just sent that does not answer is
 * theirs to hear about, and once they send another message, it is an earlier one. The history keeps
 * every image as it came.
 */
import type { HistoryMessage, ImageBlock, TextBlock } from '../api/content';

/** The messages with earlier linked images replaced, or undefined when there is none to replace. */
export function withoutEarlierImageUrls(messages: HistoryMessage[]): HistoryMessage[] | undefined {
  const current = messages.findLastIndex((message) => message.role === 'user');
  let replaced = false;
  const unlinked = (content: (TextBlock | ImageBlock)[]): TextBlock[] | (TextBlock | ImageBlock)[] =>
    content.map((block) => {
      if (block.type !== 'image' || !('url' in block)) return block;
      replaced = true;
      return { type: 'text', text: `[An image linked earlier (${block.url.slice(0, 200)}) is no longer sent: the model's server could not use its URL.]` };
    });
  const out = messages.map((message, index): HistoryMessage => {
    if (index >= current || typeof message.content === 'string') return message;
    if (message.role === 'user') return { ...message, content: unlinked(message.content) };
    if (message.role === 'tool') return { ...message, content: unlinked(message.content) };
    return message;
  });
  return replaced ? out : undefined;
}
