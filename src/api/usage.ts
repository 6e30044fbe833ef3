/**
 * Tokens, as a turn's answers and its sessions' reports to the user's object carry them. Apart from
 * the answers' own schemas (`responses.ts`, which only the OpenAPI document and the tests build), so
 * that what parses a report at run time does not make them.
 */
import * as z from '../lib/zod';

export const usageSchema = z
  .strictObject({
    inputTokens: z.number().int(),
    outputTokens: z.number().int(),
    cachedInputTokens: z.number().int(),
    cacheWriteInputTokens: z.number().int(),
    reasoningTokens: z.number().int(),
  })
  .meta({ description: 'Tokens. Cache reads and writes are parts of inputTokens.' });
