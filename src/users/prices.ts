/**
 * What a model call costs (`PRICES`: USD per million tokens, per `provider:model`) and the daily
 * limits each user has (`USER_DAILY_TOKENS`, `USER_DAILY_COST_USD`); docs/users.md. Cached input
 * tokens and tokens written to a prompt cache are parts of `inputTokens` (src/providers/vocabulary.ts),
 * so each is priced at its own rate and the rest of the input at `input`.
 */
import type { Usage } from '../providers/vocabulary';
import type { Prices } from './prices-schema';

/** The deployment's per-user settings: prices, daily limits (0: none), and where users' data lives. */
export type UserSettings = {
  prices: Prices;
  dailyTokens: number;
  dailyCostUsd: number;
  jurisdiction?: Jurisdiction;
};

/** The Durable Object jurisdictions a user's objects may be kept in. */
export const JURISDICTIONS = ['eu', 'fedramp', 'fedramp-high'] as const;
export type Jurisdiction = (typeof JURISDICTIONS)[number];

/** The cost of one call's usage in USD, or null for a model without a price. */
export function costOf(prices: Prices, model: string, usage: Usage): number | null {
  const price = prices[model];
  if (!price) return null;
  const cached = usage.cachedInputTokens;
  const written = usage.cacheWriteInputTokens;
  const plain = Math.max(0, usage.inputTokens - cached - written);
  const micro =
    plain * price.input + cached * (price.cachedInput ?? price.input) + written * (price.cacheWrite ?? price.input) + usage.outputTokens * price.output;
  return micro / 1_000_000;
}
