/**
 * What the routes of turns without a client answer (docs/background.md): a turn's state and, once it
 * ended, what `stream: "none"` would have answered; a session's webhook deliveries; a new schedule.
 */
import * as z from '../lib/zod';
import { nextCursor } from './paging';
import { stopReasonSchema, turnBodySchema } from './responses';
import { turnStatusSchema } from './turn-status';

export const turnViewSchema = turnBodySchema
  .partial({ stopReason: true, messages: true, usage: true })
  .extend({
    status: turnStatusSchema,
    startedAt: z.string().optional().meta({ description: 'Absent while it waits in the queue.' }),
    endedAt: z.string().optional(),
  })
  .meta({ description: 'A turn: its state; once ended, what `stream: "none"` would have answered (`usage` while its events are kept).' });
export type TurnView = z.infer<typeof turnViewSchema>;

/** One turn of `GET /sessions/{id}/turns`: its state and times, not what it said (`GET .../turns/{turnId}` has that). */
export const turnSummarySchema = z.strictObject({
  turnId: z.string(),
  status: turnStatusSchema,
  model: z.string(),
  startedAt: z.string().optional().meta({ description: 'Absent while it waits in the queue.' }),
  endedAt: z.string().optional(),
  stopReason: stopReasonSchema.optional(),
  errorCode: z.string().optional().meta({ description: 'The code of the error it ended with, if any (`cancelled`, `interrupted`, `upstream_error`, …).' }),
  position: z.number().int().positive().optional().meta({ description: 'Its place in the queue, from 1, while it waits.' }),
  scheduleId: z.string().optional().meta({ description: 'The schedule that started it, if one did.' }),
});
export type TurnSummary = z.infer<typeof turnSummarySchema>;

export const turnsPageSchema = z.strictObject({
  turns: z.array(turnSummarySchema).meta({ description: 'Newest first, by when each was asked for.' }),
  next: nextCursor(),
});
export type TurnsPage = z.infer<typeof turnsPageSchema>;

const attemptSchema = z.strictObject({
  at: z.string(),
  status: z.number().int().optional().meta({ description: 'The receiver’s HTTP status; absent when it did not answer.' }),
  error: z.string().optional(),
});

export const deliveryListSchema = z.strictObject({
  deliveries: z.array(
    z.strictObject({
      webhookId: z.string().meta({ description: 'The `webhook-id` header: the same on every attempt.' }),
      type: z.enum(['turn.completed', 'turn.requires_action', 'turn.failed']),
      turnId: z.string(),
      state: z.enum(['pending', 'delivered', 'failed']),
      createdAt: z.string(),
      attempts: z.array(attemptSchema),
    }),
  ),
});

export const scheduleCreatedSchema = z.strictObject({ scheduleId: z.string(), nextRunAt: z.string() });
