/**
 * Tokens, as a turn's answers and its sessions' reports to the user's object carry them. Apart from
 * the answers' own schemas (`responses.ts`, which only the OpenAPI document and the tests build), so
 * that what parses a report at run time does not make them.
 */
import { madeOnce } from '../lib/made-once';
import * as z from '../lib/zod';

/** Made by its first use (`madeOnce`): a session's isolate parses a report only when it reads its outbox back. */
export const usageSchema = madeOnce(() =>
  z.withMeta(
    z.strictObject({
      inputTokens: z.int(),
      outputTokens: z.int(),
      cachedInputTokens: z.int(),
      cacheWriteInputTokens: z.int(),
      reasoningTokens: z.int(),
    }),
    { description: 'Tokens. Cache reads and writes are parts of inputTokens.' },
  ),
);
