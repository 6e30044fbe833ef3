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
  const text = z.nullish(z.string());

  const toolCallDeltaSchema = z.object({
    index: z.nullish(z.int().check(z.nonnegative())),
    id: text,
    function: z.nullish(z.object({ name: text, arguments: text })),
    /** Gemini's thought signature of the call (its OpenAI-compatible endpoint), to be sent back with it. */
    extra_content: z.nullish(z.object({ google: z.nullish(z.object({ thought_signature: text })) })),
  });

  const usageSchema = z.object({
    prompt_tokens: z.nullish(z.number()),
    completion_tokens: z.nullish(z.number()),
    prompt_tokens_details: z.nullish(z.object({ cached_tokens: z.nullish(z.number()) })),
    completion_tokens_details: z.nullish(z.object({ reasoning_tokens: z.nullish(z.number()) })),
    /** DeepSeek reports the cache hit here as well as (newer) in prompt_tokens_details. */
    prompt_cache_hit_tokens: z.nullish(z.number()),
  });

  return z.object({
    choices: z.nullish(
      z.array(
        z.object({
          delta: z.nullish(
            z.object({
              content: text,
              refusal: text,
              reasoning_content: text,
              reasoning: text,
              tool_calls: z.nullish(z.array(toolCallDeltaSchema)),
            }),
          ),
          finish_reason: text,
        }),
      ),
    ),
    usage: z.nullish(usageSchema),
    error: z.nullish(z.object({ message: z.nullish(z.string()), code: z.nullish(z.union([z.string(), z.number()])) })),
  });
});

/** The body of an `event: error` SSE event (Groq), or of a non-2xx answer. */
export const errorBodySchema = z.object({
  error: z.nullish(z.object({ message: z.nullish(z.string()), code: z.nullish(z.union([z.string(), z.number()])) })),
});

export type ChatChunk = z.infer<ReturnType<typeof chatChunkSchema>>;
export type ChatUsage = NonNullable<ChatChunk['usage']>;
