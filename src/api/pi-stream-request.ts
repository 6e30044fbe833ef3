/**
 * The body of `POST /api/stream` (docs/pi-and-agui.md): what pi-agent-core's `streamProxy` sends,
 * `{model, context, options}`, and its conversion to our history. pi's objects carry more than we
 * read (a model's `baseUrl`, `cost`, `headers`): unknown fields are allowed and ignored, never used.
 */
import * as z from '../lib/zod';
import type { AssistantBlock, HistoryMessage, ImageBlock, TextBlock } from './content';
import { LIMITS } from './limits';
import { toolNameSchema } from './turn-request';

const text = z.string().check(z.maxLength(LIMITS.textChars, { message: `Texts are at most ${LIMITS.textChars} characters.` }));
const textContent = z.object({ type: z.literal('text'), text });
const imageContent = z.object({ type: z.literal('image'), data: z.string().check(z.minLength(1)), mimeType: z.string().check(z.regex(/^image\/[\w.+-]+$/)) });
const thinkingContent = z.object({
  type: z.literal('thinking'),
  thinking: z.string(),
  thinkingSignature: z.optional(z.string()),
  redacted: z.optional(z.boolean()),
});
const toolCallContent = z.object({
  type: z.literal('toolCall'),
  id: z.string().check(z.minLength(1)),
  name: z.string().check(z.minLength(1)),
  arguments: z.record(z.string(), z.unknown()),
  thoughtSignature: z.optional(z.string()),
});

const piMessageSchema = z.discriminatedUnion('role', [
  z.object({ role: z.literal('user'), content: z.union([text, z.array(z.union([textContent, imageContent]))]) }),
  z.object({
    role: z.literal('assistant'),
    content: z.array(z.discriminatedUnion('type', [textContent, thinkingContent, toolCallContent])),
    stopReason: z.optional(z.string()),
  }),
  z.object({
    role: z.literal('toolResult'),
    toolCallId: z.string().check(z.minLength(1)),
    toolName: z.optional(z.string()),
    content: z.array(z.union([textContent, imageContent])),
    isError: z.optional(z.boolean()),
  }),
]);

const piToolSchema = z.object({
  name: toolNameSchema,
  description: z._default(z.string().check(z.maxLength(LIMITS.toolDescriptionChars)), ''),
  parameters: z.record(z.string(), z.unknown()).check(
    z.refine((schema) => JSON.stringify(schema).length <= LIMITS.toolSchemaBytes, { message: `A tool's parameters schema is at most ${LIMITS.toolSchemaBytes} bytes of JSON.` }),
  ),
});

export const piStreamRequestSchema = z.object({
  model: z.object({ id: z.string().check(z.minLength(1), z.maxLength(256)), provider: z.string().check(z.minLength(1), z.maxLength(64)) }),
  context: z.object({
    systemPrompt: z.optional(z.string().check(z.maxLength(LIMITS.textChars))),
    messages: z.array(piMessageSchema).check(z.minLength(1, { message: 'The context has no messages.' }), z.maxLength(10_000)),
    tools: z.optional(z.array(piToolSchema).check(z.maxLength(LIMITS.toolsPerRequest))),
  }),
  options: z.optional(
    z.object({
      temperature: z.optional(z.number().check(z.gte(0), z.lte(2))),
      maxTokens: z.optional(z.int().check(z.gte(1), z.lte(1_000_000))),
    }),
  ),
});

export type PiStreamRequest = z.infer<typeof piStreamRequestSchema>;
type PiMessage = z.infer<typeof piMessageSchema>;

/**
 * pi's context as our history. Assistant messages that failed before any content (pi keeps them,
 * with `stopReason: "error"`) are left out: providers refuse an empty assistant turn.
 */
export function historyFromPi(messages: PiMessage[]): HistoryMessage[] {
  return messages.flatMap((message): HistoryMessage[] => {
    switch (message.role) {
      case 'user':
        if (typeof message.content === 'string') return [{ role: 'user', content: message.content }];
        return message.content.length === 0 ? [] : [{ role: 'user', content: message.content.map(media) }];
      case 'assistant': {
        const content = message.content.map(assistantBlock);
        return content.length === 0 ? [] : [{ role: 'assistant', content }];
      }
      case 'toolResult': {
        const result: HistoryMessage = { role: 'tool', toolCallId: message.toolCallId, content: message.content.map(media) };
        return [message.isError ? { ...result, isError: true } : result];
      }
    }
  });
}

function media(block: z.infer<typeof textContent> | z.infer<typeof imageContent>): TextBlock | ImageBlock {
  return block.type === 'text' ? { type: 'text', text: block.text } : { type: 'image', mimeType: block.mimeType, data: block.data };
}

function assistantBlock(block: Extract<PiMessage, { role: 'assistant' }>['content'][number]): AssistantBlock {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'toolCall':
      return { type: 'tool_use', toolCallId: block.id, name: block.name, input: block.arguments, ...(block.thoughtSignature !== undefined && { signature: block.thoughtSignature }) };
    case 'thinking': {
      const thinking: AssistantBlock = { type: 'thinking', thinking: block.thinking };
      if (block.thinkingSignature !== undefined) thinking.signature = block.thinkingSignature;
      if (block.redacted) thinking.redacted = true;
      return thinking;
    }
  }
}
