/** The Messages API stream events, leniently: the fields we read; unknown block and delta types pass. */
import { madeOnce } from '../../lib/made-once';
import * as z from '../../lib/zod';

/** Made by the first event it reads (`madeOnce`): a deployment that calls no Anthropic model never makes it. */
export const streamEventSchema = madeOnce(() => {
  const usageSchema = z.object({
    input_tokens: z.nullish(z.number()),
    output_tokens: z.nullish(z.number()),
    cache_read_input_tokens: z.nullish(z.number()),
    cache_creation_input_tokens: z.nullish(z.number()),
  });

  return z.discriminatedUnion('type', [
    z.object({ type: z.literal('message_start'), message: z.object({ usage: z.nullish(usageSchema) }) }),
    z.object({
      type: z.literal('content_block_start'),
      index: z.number(),
      content_block: z.looseObject({
        type: z.string(),
        id: z.optional(z.string()),
        name: z.optional(z.string()),
        data: z.optional(z.string()),
        // What a block starts with: empty from the Messages API, whole from some compatible servers.
        text: z.optional(z.string()),
        thinking: z.optional(z.string()),
        signature: z.optional(z.string()),
        input: z.optional(z.unknown()),
      }),
    }),
    z.object({
      type: z.literal('content_block_delta'),
      index: z.number(),
      delta: z.looseObject({
        type: z.string(),
        text: z.optional(z.string()),
        thinking: z.optional(z.string()),
        signature: z.optional(z.string()),
        partial_json: z.optional(z.string()),
      }),
    }),
    z.object({ type: z.literal('content_block_stop'), index: z.number() }),
    z.object({ type: z.literal('message_delta'), delta: z.object({ stop_reason: z.nullish(z.string()) }), usage: z.nullish(usageSchema) }),
    z.object({ type: z.literal('message_stop') }),
    z.object({ type: z.literal('ping') }),
    z.object({ type: z.literal('error'), error: z.object({ type: z.string(), message: z.nullish(z.string()) }) }),
  ]);
});

export type StreamEvent = z.infer<ReturnType<typeof streamEventSchema>>;
export type AnthropicUsage = NonNullable<Extract<StreamEvent, { type: 'message_start' }>['message']['usage']>;
