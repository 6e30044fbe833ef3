/**
 * What the routes of turns without a client answer (docs/background.md): a turn's state and, once it
 * ended, what `stream: "none"` would have answered; a session's webhook deliveries; a new schedule.
 */
import * as z from '../lib/zod';
import { turnBodySchema, turnStatusSchema } from './responses';

export const turnViewSchema = turnBodySchema
  .partial({ stopReason: true, messages: true, usage: true })
  .extend({ status: turnStatusSchema })
  .meta({ description: 'A turn: its state; once ended, what `stream: "none"` would have answered (`usage` while its events are kept).' });
export type TurnView = z.infer<typeof turnViewSchema>;

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
