/**
 * `PRICES`' schema (docs/users.md), made when a deployment sets the variable (src/config.ts). Apart
 * from `prices.ts`, which a Worker's turn reads without loading zod.
 */
import * as z from '../lib/zod';

export function pricesSchema() {
  const perMillion = z.number().check(z.gte(0), z.lte(1_000_000));
  return z.record(
    z.string().check(z.regex(/^[a-z0-9-]+:.+$/, { message: 'keys are "provider:model"' })),
    z.strictObject({ input: perMillion, output: perMillion, cachedInput: z.optional(perMillion), cacheWrite: z.optional(perMillion) }),
    { error: 'write a JSON object: {"provider:model": {"input": USD per million tokens, "output": ..., "cachedInput"?: ..., "cacheWrite"?: ...}}' },
  );
}

export type Prices = z.infer<ReturnType<typeof pricesSchema>>;
