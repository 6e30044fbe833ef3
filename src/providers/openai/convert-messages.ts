/** Our history and tool specs in the shape of the Chat Completions API. */
import { plainText, type HistoryMessage, type ImageBlock, type TextBlock } from '../../api/content';
import { leftOutImage, takenImageType } from '../image-types';
import type { ToolSpec } from '../types';

type ChatContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | ChatContentPart[] }
  | {
      role: 'assistant';
      content: string | null;
      tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
    }
  | { role: 'tool'; tool_call_id: string; content: string };

export function convertMessages(system: string, messages: HistoryMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  if (system) out.push({ role: 'system', content: system });
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        out.push({ role: 'system', content: plainText(message.content) });
        break;
      case 'user':
        out.push({
          role: 'user',
          content: typeof message.content === 'string' ? message.content : message.content.map(toContentPart),
        });
        break;
      case 'assistant': {
        if (typeof message.content === 'string') {
          out.push({ role: 'assistant', content: message.content });
          break;
        }
        // Thinking is not sent back: Chat Completions has no field for it that every server accepts.
        const text = message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
        const calls = message.content.flatMap((block) =>
          block.type === 'tool_use'
            ? [{ id: block.toolCallId, type: 'function' as const, function: { name: block.name, arguments: JSON.stringify(block.input) } }]
            : [],
        );
        out.push(calls.length > 0 ? { role: 'assistant', content: text || null, tool_calls: calls } : { role: 'assistant', content: text });
        break;
      }
      case 'tool':
        out.push({ role: 'tool', tool_call_id: message.toolCallId, content: toolResultText(plainText(message.content), message.isError) });
        break;
    }
  }
  return out;
}

/**
 * Chat Completions has no error flag on a tool message: a failed call says so in its text, or the
 * model takes the error's words for the tool's answer.
 */
export function toolResultText(text: string, isError: boolean | undefined): string {
  return isError ? `[The tool call failed] ${text}` : text;
}

export function convertTools(tools: ToolSpec[]) {
  return tools.map((tool) => ({
    type: 'function' as const,
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }));
}

function toContentPart(block: TextBlock | ImageBlock): ChatContentPart {
  if (block.type === 'text') return { type: 'text', text: block.text };
  if ('url' in block) return { type: 'image_url', image_url: { url: block.url } };
  const type = takenImageType(block.mimeType);
  return type ? { type: 'image_url', image_url: { url: `data:${type};base64,${block.data}` } } : { type: 'text', text: leftOutImage(block.mimeType) };
}
