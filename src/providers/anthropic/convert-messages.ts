/**
 * Our history in the shape of the Anthropic Messages API: roles alternate (tool results travel in a
 * user message, merged with what follows), thinking goes back with its signature exactly as it came
 * (redacted thinking as `redacted_thinking`), thinking without an Anthropic signature (another
 * provider's) is dropped, and system messages join the system prompt. Cache breakpoints mark the
 * system prompt, the tools and the end of the conversation, so each call pays full price only for
 * what is new since the last.
 */
import type { AssistantBlock, HistoryMessage, ImageBlock, TextBlock, ToolResultContent } from '../../api/content';
import type { ToolSpec } from '../types';

type CacheControl = { cache_control?: { type: 'ephemeral' } };
type ImageSource = { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string };
type ContentBlock = CacheControl &
  (
    | { type: 'text'; text: string }
    | { type: 'image'; source: ImageSource }
    | { type: 'thinking'; thinking: string; signature: string }
    | { type: 'redacted_thinking'; data: string }
    | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
    | { type: 'tool_result'; tool_use_id: string; content: ({ type: 'text'; text: string } | { type: 'image'; source: ImageSource })[]; is_error?: boolean }
  );
export type AnthropicMessage = { role: 'user' | 'assistant'; content: ContentBlock[] };

const EPHEMERAL = { type: 'ephemeral' } as const;

export function convertSystem(system: string, messages: HistoryMessage[]) {
  const extra = messages.flatMap((message) => (message.role === 'system' ? [joinText(message.content)] : []));
  const text = [system, ...extra].filter(Boolean).join('\n\n');
  return text ? [{ type: 'text' as const, text, cache_control: EPHEMERAL }] : undefined;
}

export function convertMessages(messages: HistoryMessage[]): AnthropicMessage[] {
  const out: AnthropicMessage[] = [];
  const push = (role: AnthropicMessage['role'], content: ContentBlock[]) => {
    if (content.length === 0) return;
    const last = out.at(-1);
    if (last?.role === role) last.content.push(...content);
    else out.push({ role, content });
  };
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        break; // part of the system prompt
      case 'user':
        push('user', typeof message.content === 'string' ? textBlocks(message.content) : message.content.flatMap(userBlock));
        break;
      case 'assistant':
        push('assistant', typeof message.content === 'string' ? textBlocks(message.content) : message.content.flatMap(assistantBlock));
        break;
      case 'tool':
        push('user', [
          {
            type: 'tool_result',
            tool_use_id: toolUseId(message.toolCallId),
            content: toolResultContent(message.content),
            ...(message.isError ? { is_error: true } : {}),
          },
        ]);
        break;
    }
  }
  markEnd(out);
  return out;
}

export function convertTools(tools: ToolSpec[]) {
  return tools.map((tool, index) => ({
    name: tool.name,
    description: tool.description,
    input_schema: { type: 'object', ...tool.parameters },
    ...(index === tools.length - 1 ? { cache_control: EPHEMERAL } : {}),
  }));
}

/** Anthropic takes tool ids of `[a-zA-Z0-9_-]`; ids from elsewhere are mapped the same way both sides. */
export function toolUseId(id: string): string {
  return id.replace(/[^a-zA-Z0-9_-]/g, '_');
}

function markEnd(messages: AnthropicMessage[]): void {
  const block = messages.at(-1)?.content.at(-1);
  if (block && block.type !== 'thinking' && block.type !== 'redacted_thinking') block.cache_control = EPHEMERAL;
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
      return [{ type: 'tool_use', id: toolUseId(block.toolCallId), name: block.name, input: block.input }];
  }
}

function userBlock(block: TextBlock | ImageBlock): ContentBlock[] {
  return block.type === 'text' ? textBlocks(block.text) : [{ type: 'image', source: imageSource(block) }];
}

function toolResultContent(content: ToolResultContent) {
  if (typeof content === 'string') return [{ type: 'text' as const, text: content || '(empty)' }];
  return content.map((block) => (block.type === 'text' ? { type: 'text' as const, text: block.text || '(empty)' } : { type: 'image' as const, source: imageSource(block) }));
}

function imageSource(block: ImageBlock): ImageSource {
  return 'url' in block ? { type: 'url', url: block.url } : { type: 'base64', media_type: block.mimeType, data: block.data };
}

/** The API refuses empty text blocks. */
function textBlocks(text: string): ContentBlock[] {
  return text ? [{ type: 'text', text }] : [];
}

function joinText(content: string | TextBlock[]): string {
  return typeof content === 'string' ? content : content.map((block) => block.text).join('\n');
}
