/** The small shapes of the routes of turns: one turn's, the listing's query, and the Idempotency-Key header. */
import { madeOnce } from '../lib/made-once';
import * as z from '../lib/zod';
import { numberCursor, pageLimit } from './paging';
import { turnStatusSchema } from './turn-status';
import { IDEMPOTENCY_KEY, TURN_ID } from './turn-fields';
import { sseModeSchema } from './turn-request';

export const turnIdSchema = z.string().check(z.regex(TURN_ID));

export const idempotencyKeySchema = z.string().check(z.regex(IDEMPOTENCY_KEY));

/** The queries are made by their first use (`madeOnce`): a route's first request makes its own, not the other's. */
export const followQuerySchema = madeOnce(() =>
  z.strictObject({
    after: z._default(z.coerce.number().check(z.int(), z.gte(0), z.lte(1e9)), 0),
    stream: z.optional(sseModeSchema),
  }),
);

/** `GET /sessions/{id}/turns`: a page size, the opaque cursor of the page before, a state to keep, and a time. */
export const turnsQuerySchema = madeOnce(() =>
  z.strictObject({
    limit: pageLimit(100, 50),
    cursor: z.optional(numberCursor()),
    status: z.optional(turnStatusSchema),
    since: z.withMeta(z.optional(z.iso.datetime({ offset: true })), {
      description: 'Only the turns whose state changed at or after this time (they ended then, or started then and run or wait): what a poll has not seen.',
    }),
  }),
);
