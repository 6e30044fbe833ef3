/**
 * A prompt without the images and the thinking of its earlier messages, for a call the provider
 * refused.
 *
 * The history goes with every call, and what it holds with it. Something a provider once took can
 * make it refuse every later request, so one such part would fail every later turn of its session:
 * - an image: a linked one whose URL stopped answering (a presigned link that expired), an inline
 *   one it cannot decode, one too many or too large, or enough of them that the request passes the
 *   size the API takes (a 413);
 * - thinking with its signature: Anthropic's API takes a signature back only from the model that
 *   made it, and a session can change its model between turns ("Invalid `signature` in `thinking`
 *   block").
 * So a call the provider refused is sent once more with the images of messages before the last user
 * message replaced by a line that says so, and their thinking left out (`model-call.ts`); the turn's
 * later calls leave them out at once, and so do later turns (the session keeps where they began,
 * `session/turn-input.ts`), so that a session pays one refused request for them, not one a turn.
 * What comes from the last user message on stays (the input in progress, what its tool calls
 * returned, and the thinking of the turn's own calls, which the API requires while it thinks): a
 * bad image the user just sent is theirs to hear about, and once they send another message, it is
 * an earlier one. The history keeps every part as it came (docs/decisions.md, 36).
 */
import type { AssistantBlock, HistoryMessage, ImageBlock, TextBlock } from '../api/content';

/**
 * The messages with the images of those before `before` (by default, the last user message)
 * replaced and their thinking left out, or undefined when there is neither.
 */
export function withoutEarlierParts(messages: HistoryMessage[], before = messages.findLastIndex((message) => message.role === 'user')): HistoryMessage[] | undefined {
  let changed = false;
  const withoutImages = (content: (TextBlock | ImageBlock)[]): (TextBlock | ImageBlock)[] =>
    content.map((block) => {
      if (block.type !== 'image') return block;
      changed = true;
      const which = 'url' in block ? block.url.slice(0, 200) : block.mimeType.slice(0, 100);
      return { type: 'text', text: `[An image shown earlier (${which}) is no longer sent: the model's server refused a request that held it.]` };
    });
  const withoutThinking = (content: AssistantBlock[]): AssistantBlock[] => {
    const kept = content.filter((block) => block.type !== 'thinking');
    if (kept.length < content.length) changed = true;
    return kept;
  };
  const out = messages.map((message, index): HistoryMessage => {
    if (index >= before || typeof message.content === 'string') return message;
    if (message.role === 'user' || message.role === 'tool') return { ...message, content: withoutImages(message.content) };
    if (message.role === 'assistant') return { ...message, content: withoutThinking(message.content) };
    return message;
  });
  return changed ? out : undefined;
}
