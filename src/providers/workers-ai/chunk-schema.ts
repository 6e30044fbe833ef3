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
    index: z.number().int().nonnegative().nullish(),
    id: z.string().nullish(),
    function: z.object({ name: z.string().nullish(), arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).nullish() }),
  });
  const nativeToolCall = z.object({ name: z.string(), arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).nullish() });

  return z.object({
    response: z.union([z.string(), z.number()]).nullish(),
    finish_reason: z.string().nullish(),
    tool_calls: z.array(z.union([openaiToolCall, nativeToolCall])).nullish(),
    usage: z.object({ prompt_tokens: z.number().nullish(), completion_tokens: z.number().nullish() }).nullish(),
    choices: z
      .array(
        z.object({
          delta: z
            .object({ content: z.string().nullish(), reasoning_content: z.string().nullish(), reasoning: z.string().nullish(), tool_calls: z.array(openaiToolCall).nullish() })
            .nullish(),
          finish_reason: z.string().nullish(),
        }),
      )
      .nullish(),
  });
});

export type AiChunk = z.infer<ReturnType<typeof aiChunkSchema>>;
export type AiToolCall = NonNullable<AiChunk['tool_calls']>[number];
