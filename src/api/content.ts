/**
 * Content blocks and history messages: the public shapes of the turns API (docs/turns-api.md), which are also the shapes the
 * session stores. Read back from SQLite through the same schemas.
 */
import * as z from '../lib/zod';

export const textBlockSchema = z.strictObject({ type: z.literal('text'), text: z.string() });

/** An image as base64 data with its media type, or by URL (for providers that take images). */
export const imageBlockSchema = z.union([
  z.strictObject({ type: z.literal('image'), mimeType: z.string().regex(/^image\/[\w.+-]+$/), data: z.string().min(1) }),
  z.strictObject({ type: z.literal('image'), url: z.url({ protocol: /^https?$/ }) }),
]);

/** Thinking keeps the provider's signature (or its redacted payload) so it can be sent back verbatim. */
export const thinkingBlockSchema = z.strictObject({
  type: z.literal('thinking'),
  thinking: z.string(),
  signature: z.string().optional(),
  redacted: z.boolean().optional(),
});

export const toolUseBlockSchema = z.strictObject({
  type: z.literal('tool_use'),
  toolCallId: z.string().min(1),
  name: z.string().min(1),
  input: z.record(z.string(), z.unknown()),
  /** The provider's opaque signature of the call (Gemini's thought signature), sent back to it verbatim. */
  signature: z.string().optional(),
});

export const userContentSchema = z.union([z.string(), z.array(z.union([textBlockSchema, imageBlockSchema])).min(1)]);
export const systemContentSchema = z.union([z.string(), z.array(textBlockSchema).min(1)]);
export const toolResultContentSchema = z.union([z.string(), z.array(z.union([textBlockSchema, imageBlockSchema]))]);
export const assistantBlockSchema = z.discriminatedUnion('type', [thinkingBlockSchema, textBlockSchema, toolUseBlockSchema]);
export const assistantContentSchema = z.union([z.string(), z.array(assistantBlockSchema)]);

export const userMessageSchema = z.strictObject({ role: z.literal('user'), content: userContentSchema });
export const systemMessageSchema = z.strictObject({ role: z.literal('system'), content: systemContentSchema });
export const assistantMessageSchema = z.strictObject({ role: z.literal('assistant'), content: assistantContentSchema });
export const toolMessageSchema = z.strictObject({
  role: z.literal('tool'),
  toolCallId: z.string().min(1),
  content: toolResultContentSchema,
  isError: z.boolean().optional(),
});

/** A message as it stands in a session's history. `tool_permission` never does. */
export const historyMessageSchema = z.discriminatedUnion('role', [
  userMessageSchema,
  systemMessageSchema,
  assistantMessageSchema,
  toolMessageSchema,
]);

export type TextBlock = z.infer<typeof textBlockSchema>;
export type ImageBlock = z.infer<typeof imageBlockSchema>;
export type ThinkingBlock = z.infer<typeof thinkingBlockSchema>;
export type ToolUseBlock = z.infer<typeof toolUseBlockSchema>;
export type AssistantBlock = z.infer<typeof assistantBlockSchema>;
export type UserContent = z.infer<typeof userContentSchema>;
export type ToolResultContent = z.infer<typeof toolResultContentSchema>;
export type UserMessage = z.infer<typeof userMessageSchema>;
export type SystemMessage = z.infer<typeof systemMessageSchema>;
export type AssistantMessage = z.infer<typeof assistantMessageSchema>;
export type ToolMessage = z.infer<typeof toolMessageSchema>;
export type HistoryMessage = z.infer<typeof historyMessageSchema>;

/** The user's messages among a request's or a turn's (steered in, a task's history). */
export const isUserMessage = (message: { role: string }): message is UserMessage => message.role === 'user';

/** Text and images as plain text, an image as `[image]` (for models and views that take text only). */
export function plainText(content: string | (TextBlock | ImageBlock)[], separator = '\n'): string {
  if (typeof content === 'string') return content;
  return content.map((block) => (block.type === 'text' ? block.text : '[image]')).join(separator);
}

/** An assistant message's text blocks, joined (its thinking and calls left out). */
export function assistantText(message: AssistantMessage): string {
  if (typeof message.content === 'string') return message.content;
  return message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
}
