/**
 * A Workers AI streaming chunk, leniently. Models answer in one of two shapes: the native one
 * (`response`, `tool_calls` of `{name, arguments}` or of OpenAI-style pieces, `finish_reason`, `usage`)
 * or an OpenAI-style one (`choices[].delta`, thinking as `reasoning_content` or `reasoning`).
 */
import { madeOnce } from '../../lib/made-once';
import * as z from '../../lib/zod';

/** Made by the first chunk it reads (`madeOnce`): a deployment that calls no Workers AI model never makes it. */
export const aiChunkSchema = madeOnce(() => {
  const openaiToolCall = z.object({
    index: z.nullish(z.int().check(z.nonnegative())),
    id: z.nullish(z.string()),
    function: z.object({ name: z.nullish(z.string()), arguments: z.nullish(z.union([z.string(), z.record(z.string(), z.unknown())])) }),
  });
  const nativeToolCall = z.object({ name: z.string(), arguments: z.nullish(z.union([z.string(), z.record(z.string(), z.unknown())])) });

  return z.object({
    response: z.nullish(z.union([z.string(), z.number()])),
    finish_reason: z.nullish(z.string()),
    tool_calls: z.nullish(z.array(z.union([openaiToolCall, nativeToolCall]))),
    usage: z.nullish(z.object({ prompt_tokens: z.nullish(z.number()), completion_tokens: z.nullish(z.number()) })),
    choices: z.nullish(
      z.array(
        z.object({
          delta: z.nullish(
            z.object({ content: z.nullish(z.string()), reasoning_content: z.nullish(z.string()), reasoning: z.nullish(z.string()), tool_calls: z.nullish(z.array(openaiToolCall)) }),
          ),
          finish_reason: z.nullish(z.string()),
        }),
      ),
    ),
  });
});

export type AiChunk = z.infer<ReturnType<typeof aiChunkSchema>>;
export type AiToolCall = NonNullable<AiChunk['tool_calls']>[number];
