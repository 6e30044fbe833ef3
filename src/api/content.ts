/**
 * Content blocks and history messages: the public shapes of the turns API (docs/turns-api.md), which are also the shapes the
 * session stores. Read back from SQLite through the same schemas.
 */
import { madeOnce } from '../lib/made-once';
import * as z from '../lib/zod';

// Each schema is made by its first use (`madeOnce`), not as the module loads: every isolate loads
// this module, and many never parse with them. A plain turn request is checked by hand in the Worker
// (`plain-turn-request.ts`), and a session reads its history back through them only when it loads it
// from storage (bench/PROFILE.md, "Schemas a first turn does not use").

export const textBlockSchema = madeOnce(() => z.strictObject({ type: z.literal('text'), text: z.string() }));

/** An image as base64 data with its media type, or by URL (for providers that take images). */
export const imageBlockSchema = madeOnce(() =>
  z.union([
    z.strictObject({ type: z.literal('image'), mimeType: z.string().check(z.regex(/^image\/[\w.+-]+$/)), data: z.string().check(z.minLength(1)) }),
    z.strictObject({ type: z.literal('image'), url: z.url({ protocol: /^https?$/ }) }),
  ]),
);

/** Thinking keeps the provider's signature (or its redacted payload) so it can be sent back verbatim. */
export const thinkingBlockSchema = madeOnce(() =>
  z.strictObject({
    type: z.literal('thinking'),
    thinking: z.string(),
    signature: z.optional(z.string()),
    redacted: z.optional(z.boolean()),
  }),
);

export const toolUseBlockSchema = madeOnce(() =>
  z.strictObject({
    type: z.literal('tool_use'),
    toolCallId: z.string().check(z.minLength(1)),
    name: z.string().check(z.minLength(1)),
    input: z.record(z.string(), z.unknown()),
    /** The provider's opaque signature of the call (Gemini's thought signature), sent back to it verbatim. */
    signature: z.optional(z.string()),
  }),
);

export const userContentSchema = madeOnce(() => z.union([z.string(), z.array(z.union([textBlockSchema(), imageBlockSchema()])).check(z.minLength(1))]));
export const systemContentSchema = madeOnce(() => z.union([z.string(), z.array(textBlockSchema()).check(z.minLength(1))]));
export const toolResultContentSchema = madeOnce(() => z.union([z.string(), z.array(z.union([textBlockSchema(), imageBlockSchema()]))]));
export const assistantBlockSchema = madeOnce(() => z.discriminatedUnion('type', [thinkingBlockSchema(), textBlockSchema(), toolUseBlockSchema()]));
export const assistantContentSchema = madeOnce(() => z.union([z.string(), z.array(assistantBlockSchema())]));

export const userMessageSchema = madeOnce(() => z.strictObject({ role: z.literal('user'), content: userContentSchema() }));
export const systemMessageSchema = madeOnce(() => z.strictObject({ role: z.literal('system'), content: systemContentSchema() }));
export const assistantMessageSchema = madeOnce(() => z.strictObject({ role: z.literal('assistant'), content: assistantContentSchema() }));
export const toolMessageSchema = madeOnce(() =>
  z.strictObject({
    role: z.literal('tool'),
    toolCallId: z.string().check(z.minLength(1)),
    content: toolResultContentSchema(),
    isError: z.optional(z.boolean()),
  }),
);

/** A message as it stands in a session's history. `tool_permission` never does. */
export const historyMessageSchema = madeOnce(() =>
  z.discriminatedUnion('role', [userMessageSchema(), systemMessageSchema(), assistantMessageSchema(), toolMessageSchema()]),
);

export type TextBlock = z.infer<ReturnType<typeof textBlockSchema>>;
export type ImageBlock = z.infer<ReturnType<typeof imageBlockSchema>>;
export type ThinkingBlock = z.infer<ReturnType<typeof thinkingBlockSchema>>;
export type ToolUseBlock = z.infer<ReturnType<typeof toolUseBlockSchema>>;
export type AssistantBlock = z.infer<ReturnType<typeof assistantBlockSchema>>;
export type UserContent = z.infer<ReturnType<typeof userContentSchema>>;
export type ToolResultContent = z.infer<ReturnType<typeof toolResultContentSchema>>;
export type UserMessage = z.infer<ReturnType<typeof userMessageSchema>>;
export type SystemMessage = z.infer<ReturnType<typeof systemMessageSchema>>;
export type AssistantMessage = z.infer<ReturnType<typeof assistantMessageSchema>>;
export type ToolMessage = z.infer<ReturnType<typeof toolMessageSchema>>;
export type HistoryMessage = z.infer<ReturnType<typeof historyMessageSchema>>;

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
