/** The OpenAPI paths of turns without a client (docs/background.md): a turn's state, deliveries, schedules. */
import { deliveryListSchema, scheduleCreatedSchema, turnViewSchema } from '../api/background-responses';
import { scheduleRequestSchema, scheduleViewSchema } from '../api/schedule-requests';
import * as z from '../lib/zod';
import { errors, json, schemaOf, sessionId, turnId, type Json } from './openapi-parts';

const scheduleId = { name: 'scheduleId', in: 'path', required: true, schema: { type: 'string', pattern: '^sch_[0-9a-f]{24}$' } };

export function backgroundPaths(): Json {
  return {
    '/sessions/{id}/turns/{turnId}': {
      get: {
        operationId: 'getTurn',
        summary: 'A turn’s state; once it ended, what `stream: "none"` would have answered',
        parameters: [sessionId, turnId],
        responses: { '200': json(turnViewSchema, 'The turn.'), ...errors('401', '404', '500') },
      },
    },
    '/sessions/{id}/deliveries': {
      get: {
        operationId: 'getDeliveries',
        summary: 'The session’s last 50 webhook deliveries, newest first, with each attempt',
        parameters: [sessionId],
        responses: { '200': json(deliveryListSchema, 'The deliveries.'), ...errors('401', '404', '500') },
      },
    },
    '/sessions/{id}/schedules': {
      post: {
        operationId: 'createSchedule',
        summary: 'A turn to run at a time (`at`) or on a five-field cron in a time zone',
        description: 'Fired by the session’s alarm within 5 s of its time as an enqueued turn, stored and sent to the webhook like any other. At most 16 a session; the session is made by its first schedule if it is new.',
        parameters: [sessionId],
        requestBody: { required: true, content: { 'application/json': { schema: schemaOf(scheduleRequestSchema(), 'input') } } },
        responses: { '201': json(scheduleCreatedSchema, 'The schedule, and when it runs first.'), ...errors('400', '401', '409', '413', '415', '429', '500') },
      },
      get: {
        operationId: 'getSchedules',
        summary: 'The session’s schedules, with their next run and their last',
        parameters: [sessionId],
        responses: { '200': json(z.strictObject({ schedules: z.array(scheduleViewSchema()) }), 'The schedules.'), ...errors('401', '404', '500') },
      },
    },
    '/sessions/{id}/schedules/{scheduleId}': {
      delete: {
        operationId: 'deleteSchedule',
        summary: 'Delete a schedule',
        parameters: [sessionId, scheduleId],
        responses: { '204': { description: 'Deleted.' }, ...errors('401', '404', '500') },
      },
    },
  };
}
