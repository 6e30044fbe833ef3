/**
 * Our history in the shape of the Anthropic Messages API: roles alternate (tool results travel in a
 * user message, merged with what follows), thinking goes back with its signature exactly as it came
 * (redacted thinking as `redacted_thinking`), thinking without an Anthropic signature (another
 * provider's) is dropped, and system messages join the system prompt. Cache breakpoints mark the
 * system prompt, the tools and the end of the conversation, so each call pays full price only for
 * what is new since the last.
 *
 * The API refuses a text block that is empty or only whitespace ("text content blocks must contain
 * non-whitespace text"), and a final assistant message that ends in whitespace. Models write such
 * text (a "\n\n" before a tool call), and users send it; stored, it would go with every later call
 * and fail each. So blank text is left out of what is sent (a user message or tool result left
 * with nothing says "(empty)", as does the one message of a turn that brought only system
 * messages), and the final assistant text is sent without its trailing spaces.
 */
import type { AssistantBlock, HistoryMessage, ImageBlock, TextBlock, ToolResultContent } from '../../api/content';
import { functionName } from '../../api/function-names';
import { leftOutImage, takenImageType } from '../image-types';
import type { ToolSpec } from '../types';
import { arrayJsonOnce } from '../../lib/well-formed-json';
import { inputSchema } from './input-schema';

type CacheControl = { cache_control?: { type: 'ephemeral' } };
type ImageSource = { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string };
type ToolResultBlock = { type: 'text'; text: string } | { type: 'image'; source: ImageSource };
type ContentBlock = CacheControl &
  (
    | { type: 'text'; text: string }
    | { type: 'image'; source: ImageSource }
    | { type: 'thinking'; thinking: string; signature: string }
    | { type: 'redacted_thinking'; data: string }
    | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
    | { type: 'tool_result'; tool_use_id: string; content: ToolResultBlock[]; is_error?: boolean }
  );
export type AnthropicMessage = { role: 'user' | 'assistant'; content: ContentBlock[] };

const EPHEMERAL = { type: 'ephemeral' } as const;

export function convertSystem(system: string, messages: HistoryMessage[]) {
  const extra = messages.flatMap((message) => (message.role === 'system' ? [joinText(message.content)] : []));
  const text = [system, ...extra].filter(Boolean).join('\n\n');
  return text ? [{ type: 'text' as const, text, cache_control: EPHEMERAL }] : undefined;
}

/**
 * The messages as the API takes them. Each history message's blocks are kept with it (`converted`),
 * so the history a session sends again with every call is converted once; the merged messages are
 * new each call, and the end's trim and mark go on copies of the blocks they change.
 */
export function convertMessages(messages: HistoryMessage[]): AnthropicMessage[] {
  const out: AnthropicMessage[] = [];
  const push = (role: AnthropicMessage['role'], content: ContentBlock[]) => {
    if (content.length === 0) return;
    const last = out.at(-1);
    if (last?.role === role) last.content.push(...content);
    else out.push({ role, content: [...content] });
  };
  for (const message of messages) {
    let entry = converted.get(message);
    if (entry === undefined) {
      entry = blocksOf(message);
      converted.set(message, entry);
    }
    if (entry) push(entry.role, entry.blocks);
  }
  // A turn of system messages alone (all in the system prompt) leaves none: the API takes no request without one.
  if (out.length === 0) push('user', [{ type: 'text', text: EMPTY }]);
  trimFinalAssistant(out);
  markEnd(out);
  return out;
}

/**
 * Each history message's blocks, and the role they go under (null for a system message, which
 * joins the system prompt). A history message is never changed once made, nor are these blocks, so
 * the provider writes each block's JSON once too (`messageJson`).
 */
const converted = new WeakMap<HistoryMessage, { role: AnthropicMessage['role']; blocks: ContentBlock[] } | null>();

function blocksOf(message: HistoryMessage): { role: AnthropicMessage['role']; blocks: ContentBlock[] } | null {
  switch (message.role) {
    case 'system':
      return null; // part of the system prompt
    case 'user': {
      const blocks = typeof message.content === 'string' ? textBlocks(message.content) : message.content.flatMap(userBlock);
      return { role: 'user', blocks: blocks.length > 0 ? blocks : [{ type: 'text', text: EMPTY }] };
    }
    case 'assistant':
      return { role: 'assistant', blocks: typeof message.content === 'string' ? textBlocks(message.content) : message.content.flatMap(assistantBlock) };
    case 'tool':
      return {
        role: 'user',
        blocks: [
          {
            type: 'tool_result',
            tool_use_id: toolUseId(message.toolCallId),
            content: toolResultContent(message.content),
            ...(message.isError ? { is_error: true } : {}),
          },
        ],
      };
  }
}

/** A message's JSON, each of its blocks written once for its life (`arrayJsonOnce`). */
export function messageJson(message: AnthropicMessage): string {
  return `{"role":${JSON.stringify(message.role)},"content":${arrayJsonOnce(message.content)}}`;
}

export function convertTools(tools: ToolSpec[]) {
  return tools.map((tool, index) => ({
    name: tool.name,
    description: tool.description,
    input_schema: inputSchema(tool.parameters),
    ...(index === tools.length - 1 ? { cache_control: EPHEMERAL } : {}),
  }));
}

/** Anthropic takes tool ids of `[a-zA-Z0-9_-]`; ids from elsewhere are mapped the same way both sides. */
export function toolUseId(id: string): string {
  return id.replace(/[^a-zA-Z0-9_-]/g, '_');
}

/** A conversation that ends with the model's own words (a paused answer, continued) may not end in whitespace. */
function trimFinalAssistant(messages: AnthropicMessage[]): void {
  const last = messages.at(-1);
  const block = last?.role === 'assistant' ? last.content.at(-1) : undefined;
  if (last && block?.type === 'text') last.content[last.content.length - 1] = { ...block, text: block.text.trimEnd() };
}

function markEnd(messages: AnthropicMessage[]): void {
  const content = messages.at(-1)?.content;
  const block = content?.at(-1);
  if (content && block && block.type !== 'thinking' && block.type !== 'redacted_thinking') content[content.length - 1] = { ...block, cache_control: EPHEMERAL };
}

function assistantBlock(block: AssistantBlock): ContentBlock[] {
  switch (block.type) {
    case 'text':
      return textBlocks(block.text);
    case 'thinking':
      if (block.redacted && block.signature) return [{ type: 'redacted_thinking', data: block.signature }];
      // Thinking the API did not sign (another provider's) cannot be sent back: it is dropped.
      return block.signature ? [{ type: 'thinking', thinking: block.thinking, signature: block.signature }] : [];
    case 'tool_use':
      return [{ type: 'tool_use', id: toolUseId(block.toolCallId), name: functionName(block.name), input: block.input }];
  }
}

function userBlock(block: TextBlock | ImageBlock): ContentBlock[] {
  return block.type === 'text' ? textBlocks(block.text) : [imageBlock(block)];
}

function toolResultContent(content: ToolResultContent): ToolResultBlock[] {
  const blocks: ToolResultBlock[] =
    typeof content === 'string' ? textBlocks(content) : content.flatMap((block): ToolResultBlock[] => (block.type === 'text' ? textBlocks(block.text) : [imageBlock(block)]));
  return blocks.length > 0 ? blocks : [{ type: 'text', text: EMPTY }];
}

/** An image as the API takes it, or a line that says it was left out (`image-types.ts`). */
function imageBlock(block: ImageBlock): ToolResultBlock {
  if ('url' in block) return { type: 'image', source: { type: 'url', url: block.url } };
  const type = takenImageType(block.mimeType);
  return type ? { type: 'image', source: { type: 'base64', media_type: type, data: block.data } } : { type: 'text', text: leftOutImage(block.mimeType) };
}

/** What a user message or tool result with no text to send says instead. */
const EMPTY = '(empty)';

/** Text as the API takes it: none for blank text, which it refuses. */
function textBlocks(text: string): { type: 'text'; text: string }[] {
  return text.trim() ? [{ type: 'text', text }] : [];
}

function joinText(content: string | TextBlock[]): string {
  return typeof content === 'string' ? content : content.map((block) => block.text).join('\n');
}
