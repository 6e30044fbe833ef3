/**
 * A prompt without the images of its earlier messages, for a call the provider refused.
 *
 * The history goes with every call, and its images with it. An image a provider once took can make
 * it refuse every later request: a linked one whose URL stopped answering (a presigned link that
 * expired), an inline one it cannot decode, one too many or too large, or enough of them that the
 * request passes the size the API takes (a 413). One such image would fail every later turn of its
 * session. So a call the provider refused is sent once more with the images of messages before the
 * last user message replaced by a line that says so (`model-call.ts`), and the turn's later calls
 * leave them out at once. The images from the last user message on stay (the
 * input in progress, and what its tool calls returned): a bad image the user just sent is theirs to
 * hear about, and once they send another message, it is an earlier one. The history keeps every
 * image as it came (docs/decisions.md, 36).
 */
import type { HistoryMessage, ImageBlock, TextBlock } from '../api/content';

/** The messages with earlier images replaced, or undefined when there is none to replace. */
export function withoutEarlierImages(messages: HistoryMessage[]): HistoryMessage[] | undefined {
  const current = messages.findLastIndex((message) => message.role === 'user');
  let replaced = false;
  const withoutImages = (content: (TextBlock | ImageBlock)[]): (TextBlock | ImageBlock)[] =>
    content.map((block) => {
      if (block.type !== 'image') return block;
      replaced = true;
      const which = 'url' in block ? block.url.slice(0, 200) : block.mimeType.slice(0, 100);
      return { type: 'text', text: `[An image shown earlier (${which}) is no longer sent: the model's server refused a request that held it.]` };
    });
  const out = messages.map((message, index): HistoryMessage => {
    if (index >= current || typeof message.content === 'string') return message;
    if (message.role === 'user') return { ...message, content: withoutImages(message.content) };
    if (message.role === 'tool') return { ...message, content: withoutImages(message.content) };
    return message;
  });
  return replaced ? out : undefined;
}
