/**
 * What the routes of turns without a client answer (docs/background.md): a turn's state and, once it
 * ended, what `stream: "none"` would have answered; a session's webhook deliveries; a new schedule.
 */
import * as z from '../lib/zod';
import { nextCursor } from './paging';
import { stopReasonSchema, turnBodySchema } from './responses';
import { turnStatusSchema } from './turn-status';

export const turnViewSchema = z.withMeta(
  z.extend(z.partial(turnBodySchema, { stopReason: true, messages: true, usage: true }), {
    status: turnStatusSchema,
    startedAt: z.withMeta(z.optional(z.string()), { description: 'Absent while it waits in the queue.' }),
    endedAt: z.optional(z.string()),
  }),
  { description: 'A turn: its state; once ended, what `stream: "none"` would have answered (`usage` while its events are kept).' },
);
export type TurnView = z.infer<typeof turnViewSchema>;

/** One turn of `GET /sessions/{id}/turns`: its state and times, not what it said (`GET .../turns/{turnId}` has that). */
export const turnSummarySchema = z.strictObject({
  turnId: z.string(),
  status: turnStatusSchema,
  model: z.string(),
  startedAt: z.withMeta(z.optional(z.string()), { description: 'Absent while it waits in the queue.' }),
  endedAt: z.optional(z.string()),
  stopReason: z.optional(stopReasonSchema),
  errorCode: z.withMeta(z.optional(z.string()), { description: 'The code of the error it ended with, if any (`cancelled`, `interrupted`, `upstream_error`, …).' }),
  position: z.withMeta(z.optional(z.int().check(z.positive())), { description: 'Its place in the queue, from 1, while it waits.' }),
  scheduleId: z.withMeta(z.optional(z.string()), { description: 'The schedule that started it, if one did.' }),
});
export type TurnSummary = z.infer<typeof turnSummarySchema>;

export const turnsPageSchema = z.strictObject({
  turns: z.withMeta(z.array(turnSummarySchema), { description: 'Newest first, by when each was asked for.' }),
  next: nextCursor(),
});
export type TurnsPage = z.infer<typeof turnsPageSchema>;

const attemptSchema = z.strictObject({
  at: z.string(),
  status: z.withMeta(z.optional(z.int()), { description: 'The receiver’s HTTP status; absent when it did not answer.' }),
  error: z.optional(z.string()),
});

export const deliveryListSchema = z.strictObject({
  deliveries: z.array(
    z.strictObject({
      webhookId: z.withMeta(z.string(), { description: 'The `webhook-id` header: the same on every attempt.' }),
      type: z.enum(['turn.completed', 'turn.requires_action', 'turn.failed']),
      turnId: z.string(),
      state: z.enum(['pending', 'delivered', 'failed']),
      createdAt: z.string(),
      attempts: z.array(attemptSchema),
    }),
  ),
});

export const scheduleCreatedSchema = z.strictObject({ scheduleId: z.string(), nextRunAt: z.string() });
