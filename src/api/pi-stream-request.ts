/**
 * The body of `POST /api/stream` (docs/pi-and-agui.md): what pi-agent-core's `streamProxy` sends,
 * `{model, context, options}`, and its conversion to our history. pi's objects carry more than we
 * read (a model's `baseUrl`, `cost`, `headers`): unknown fields are allowed and ignored, never used.
 */
import * as z from '../lib/zod';
import type { AssistantBlock, HistoryMessage, ImageBlock, TextBlock } from './content';
import { LIMITS } from './limits';
import { toolNameSchema } from './turn-request';

const text = z.string().max(LIMITS.textChars, { message: `Texts are at most ${LIMITS.textChars} characters.` });
const textContent = z.object({ type: z.literal('text'), text });
const imageContent = z.object({ type: z.literal('image'), data: z.string().min(1), mimeType: z.string().regex(/^image\/[\w.+-]+$/) });
const thinkingContent = z.object({
  type: z.literal('thinking'),
  thinking: z.string(),
  thinkingSignature: z.string().optional(),
  redacted: z.boolean().optional(),
});
const toolCallContent = z.object({
  type: z.literal('toolCall'),
  id: z.string().min(1),
  name: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()),
  thoughtSignature: z.string().optional(),
});

const piMessageSchema = z.discriminatedUnion('role', [
  z.object({ role: z.literal('user'), content: z.union([text, z.array(z.union([textContent, imageContent]))]) }),
  z.object({
    role: z.literal('assistant'),
    content: z.array(z.discriminatedUnion('type', [textContent, thinkingContent, toolCallContent])),
    stopReason: z.string().optional(),
  }),
  z.object({
    role: z.literal('toolResult'),
    toolCallId: z.string().min(1),
    toolName: z.string().optional(),
    content: z.array(z.union([textContent, imageContent])),
    isError: z.boolean().optional(),
  }),
]);

const piToolSchema = z.object({
  name: toolNameSchema,
  description: z.string().max(LIMITS.toolDescriptionChars).default(''),
  parameters: z
    .record(z.string(), z.unknown())
    .refine((schema) => JSON.stringify(schema).length <= LIMITS.toolSchemaBytes, {
      message: `A tool's parameters schema is at most ${LIMITS.toolSchemaBytes} bytes of JSON.`,
    }),
});

export const piStreamRequestSchema = z.object({
  model: z.object({ id: z.string().min(1).max(256), provider: z.string().min(1).max(64) }),
  context: z.object({
    systemPrompt: z.string().max(LIMITS.textChars).optional(),
    messages: z.array(piMessageSchema).min(1, { message: 'The context has no messages.' }).max(10_000),
    tools: z.array(piToolSchema).max(LIMITS.toolsPerRequest).optional(),
  }),
  options: z
    .object({
      temperature: z.number().min(0).max(2).optional(),
      maxTokens: z.number().int().min(1).max(1_000_000).optional(),
    })
    .optional(),
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
