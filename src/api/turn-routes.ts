/** The small shapes of the routes of turns: one turn's, the listing's query, and the Idempotency-Key header. */
import * as z from '../lib/zod';
import { turnStatusSchema } from './responses';
import { sseModeSchema } from './turn-request';

export const turnIdSchema = z.string().regex(/^turn_[0-9a-f]{24}$/);

export const idempotencyKeySchema = z.string().regex(/^[\x21-\x7e]{1,255}$/);

export const followQuerySchema = z.strictObject({
  after: z.coerce.number().int().min(0).max(1e9).default(0),
  stream: sseModeSchema.optional(),
});

/** `GET /sessions/{id}/turns`: a page size, the opaque cursor of the page before, and a state to keep. */
export const turnsQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(50),
  cursor: z
    .string()
    .regex(/^[0-9]{1,15}$/, { message: 'The cursor is the "next" value of a previous page.' })
    .transform(Number)
    .optional(),
  status: turnStatusSchema.optional(),
});
