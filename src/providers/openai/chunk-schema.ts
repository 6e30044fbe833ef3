/**
 * The Chat Completions stream chunk, leniently: only the fields we read, each optional and nullable,
 * since OpenAI-compatible servers differ (vLLM, llama.cpp, DeepSeek, Groq, OpenRouter, xAI...).
 */
import { madeOnce } from '../../lib/made-once';
import * as z from '../../lib/zod';

/**
 * Made by the first chunk it reads (`madeOnce`), as the other providers' schemas are: a new isolate makes
 * only the schemas of the providers its deployment calls (bench/PROFILE.md, "The configuration's
 * checks made for what is set").
 */
export const chatChunkSchema = madeOnce(() => {
  const text = z.string().nullish();

  const toolCallDeltaSchema = z.object({
    index: z.number().int().nonnegative().nullish(),
    id: text,
    function: z.object({ name: text, arguments: text }).nullish(),
    /** Gemini's thought signature of the call (its OpenAI-compatible endpoint), to be sent back with it. */
    extra_content: z.object({ google: z.object({ thought_signature: text }).nullish() }).nullish(),
  });

  const usageSchema = z.object({
    prompt_tokens: z.number().nullish(),
    completion_tokens: z.number().nullish(),
    prompt_tokens_details: z.object({ cached_tokens: z.number().nullish() }).nullish(),
    completion_tokens_details: z.object({ reasoning_tokens: z.number().nullish() }).nullish(),
    /** DeepSeek reports the cache hit here as well as (newer) in prompt_tokens_details. */
    prompt_cache_hit_tokens: z.number().nullish(),
  });

  return z.object({
    choices: z
      .array(
        z.object({
          delta: z
            .object({
              content: text,
              refusal: text,
              reasoning_content: text,
              reasoning: text,
              tool_calls: z.array(toolCallDeltaSchema).nullish(),
            })
            .nullish(),
          finish_reason: text,
        }),
      )
      .nullish(),
    usage: usageSchema.nullish(),
    error: z.object({ message: z.string().nullish(), code: z.union([z.string(), z.number()]).nullish() }).nullish(),
  });
});

/** The body of an `event: error` SSE event (Groq), or of a non-2xx answer. */
export const errorBodySchema = z.object({
  error: z.object({ message: z.string().nullish(), code: z.union([z.string(), z.number()]).nullish() }).nullish(),
});

export type ChatChunk = z.infer<ReturnType<typeof chatChunkSchema>>;
export type ChatUsage = NonNullable<ChatChunk['usage']>;
