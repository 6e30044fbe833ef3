/**
 * An MCP tool result as the content of a tool result: text stays text, images become image blocks
 * (the data blocks every door carries), other kinds are described in a line of text. A result the
 * server marks `isError` is a tool error the model reads.
 */
import { imageBlockSchema, plainText, type ImageBlock, type TextBlock, type ToolResultContent } from '../../api/content';
import { ToolError } from '../types';

/** The parts of `CallToolResult` we read; anything else the server sends is ignored. */
export type McpCallResult = {
  content?: unknown[] | null;
  structuredContent?: unknown;
  isError?: boolean | null;
};

export function toolResultFromMcp(result: McpCallResult): ToolResultContent {
  const blocks = (result.content ?? []).map(block);
  if (blocks.length === 0 && result.structuredContent != null) blocks.push({ type: 'text', text: JSON.stringify(result.structuredContent) });
  if (result.isError) throw new ToolError(plainText(blocks) || 'The MCP tool reported an error.');
  return blocks.every((part) => part.type === 'text') ? plainText(blocks) : blocks;
}

function block(item: unknown): TextBlock | ImageBlock {
  const part = (item ?? {}) as Record<string, any>;
  switch (part.type) {
    case 'text':
      return { type: 'text', text: String(part.text ?? '') };
    case 'image': {
      const image = imageBlockSchema().safeParse({ type: 'image', mimeType: part.mimeType, data: part.data });
      return image.success ? image.data : { type: 'text', text: '[an image the server sent without data or type]' };
    }
    case 'audio':
      return { type: 'text', text: `[audio (${part.mimeType ?? 'unknown type'}) not shown]` };
    case 'resource_link':
      return { type: 'text', text: `[resource ${part.name ?? ''} ${part.uri ?? ''}]`.replace(/\s+\]/, ']') };
    case 'resource': {
      const resource = (part.resource ?? {}) as Record<string, unknown>;
      return { type: 'text', text: typeof resource.text === 'string' ? resource.text : `[resource ${String(resource.uri ?? '')}]` };
    }
    default:
      return { type: 'text', text: `[${String(part.type ?? 'unknown')} content not shown]` };
  }
}
