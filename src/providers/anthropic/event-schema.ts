/** The Messages API stream events, leniently: the fields we read; unknown block and delta types pass. */
import { madeOnce } from '../../lib/made-once';
import * as z from '../../lib/zod';

/** Made by the first event it reads (`madeOnce`): a deployment that calls no Anthropic model never makes it. */
export const streamEventSchema = madeOnce(() => {
  const usageSchema = z.object({
    input_tokens: z.number().nullish(),
    output_tokens: z.number().nullish(),
    cache_read_input_tokens: z.number().nullish(),
    cache_creation_input_tokens: z.number().nullish(),
  });

  return z.discriminatedUnion('type', [
    z.object({ type: z.literal('message_start'), message: z.object({ usage: usageSchema.nullish() }) }),
    z.object({
      type: z.literal('content_block_start'),
      index: z.number(),
      content_block: z.looseObject({
        type: z.string(),
        id: z.string().optional(),
        name: z.string().optional(),
        data: z.string().optional(),
        // What a block starts with: empty from the Messages API, whole from some compatible servers.
        text: z.string().optional(),
        thinking: z.string().optional(),
        signature: z.string().optional(),
        input: z.unknown().optional(),
      }),
    }),
    z.object({
      type: z.literal('content_block_delta'),
      index: z.number(),
      delta: z.looseObject({
        type: z.string(),
        text: z.string().optional(),
        thinking: z.string().optional(),
        signature: z.string().optional(),
        partial_json: z.string().optional(),
      }),
    }),
    z.object({ type: z.literal('content_block_stop'), index: z.number() }),
    z.object({ type: z.literal('message_delta'), delta: z.object({ stop_reason: z.string().nullish() }), usage: usageSchema.nullish() }),
    z.object({ type: z.literal('message_stop') }),
    z.object({ type: z.literal('ping') }),
    z.object({ type: z.literal('error'), error: z.object({ type: z.string(), message: z.string().nullish() }) }),
  ]);
});

export type StreamEvent = z.infer<ReturnType<typeof streamEventSchema>>;
export type AnthropicUsage = NonNullable<Extract<StreamEvent, { type: 'message_start' }>['message']['usage']>;
