/**
 * What the user routes answer (docs/users.md): the caller's sessions, their usage per day and model,
 * their own view, and the export's lines. Schemas, as for the turns API: the OpenAPI document is
 * generated from them and the tests parse real answers with them; the Worker and the objects import
 * only their types (the routes' queries are in `users-query.ts`).
 */
import * as z from '../lib/zod';
import { nextCursor } from './paging';
import { sessionEntrySchema } from './session-entry';
import { usageSchema } from './usage';

export const sessionListSchema = z.strictObject({
  sessions: z.array(sessionEntrySchema()),
  next: nextCursor(),
});

const spendSchema = z.extend(usageSchema(), {
  calls: z.int(),
  costUsd: z.withMeta(z.nullable(z.number()), { description: 'From PRICES; null when no call of it had a price.' }),
});

export const usageDaySchema = z.extend(spendSchema, { date: z.string(), model: z.string() });
export type UsageDay = z.infer<typeof usageDaySchema>;

export const usageReportSchema = z.strictObject({ days: z.array(usageDaySchema), total: spendSchema });
export type Spend = z.infer<typeof spendSchema>;

const limitsSchema = z.strictObject({
  dailyTokens: z.withMeta(z.nullable(z.int()), { description: 'USER_DAILY_TOKENS; null: none.' }),
  dailyCostUsd: z.withMeta(z.nullable(z.number()), { description: 'USER_DAILY_COST_USD; null: none.' }),
  resetAt: z.withMeta(z.string(), { description: 'The next UTC midnight, when the day’s totals start again.' }),
});

export const userViewSchema = z.strictObject({
  userId: z.string(),
  sessionCount: z.int(),
  today: z.strictObject({ date: z.string(), usage: spendSchema }),
  limits: limitsSchema,
  jurisdiction: z.withMeta(z.optional(z.string()), { description: 'The Durable Object jurisdiction that holds this user’s objects.' }),
});
