/**
 * The pieces the OpenAPI document (`openapi.ts`) is built of: JSON Schemas from the zod schemas, the
 * error answers, JSON and SSE media, and the path and query parameters the routes share.
 */
import { sessionIdSchema } from '../api/turn-request';
import { turnIdSchema } from '../api/turn-routes';
import * as z from '../lib/zod';

export type JsonSchema = Record<string, unknown>;
export type Json = Record<string, unknown>;

export function schemaOf(schema: z.ZodMiniType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonSchema;
  return json;
}

const ERROR_STATUSES: Record<string, string> = {
  '400': 'The body, URL or a header is malformed, or the request does not fit the session (`code` says which).',
  '401': 'No valid bearer token.',
  '403': 'The request names another user than the token.',
  '404': 'No such session, turn, message or branch (for this user).',
  '405': 'Another method than the route takes.',
  '409': 'A turn runs in the session (`session_busy`, `details.runningTurnId`), its queue is full (`queue_full`), calls are still owed (`details.pendingToolCallIds`), the id a fork asks for is taken (`session_exists`), or the session has its 16 schedules (`too_many_schedules`).',
  '410': 'The events of a turn that ended more than 24 h ago.',
  '413': 'A body over 10 MiB (decoded, when it came gzip- or deflate-encoded).',
  '415': 'A body not sent as JSON, or in a Content-Encoding other than gzip and deflate.',
  '422': 'An Idempotency-Key sent again with another body.',
  '426': 'A plain GET of the socket route.',
  '429': 'Over the rate limit (`rate_limited`), or, for a request that calls a model, over a daily quota (`quota_exceeded`, `details {unit, limit, used, resetAt}`); wait `Retry-After` seconds.',
  '500': 'A configuration error, or a failure of the server.',
  '503': 'Some of the work could not be done now; send the request again.',
};

export function errors(...statuses: string[]): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const status of statuses) {
    out[status] = { description: ERROR_STATUSES[status], content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
  }
  return out;
}

export const json = (schema: z.ZodMiniType, description: string): Json => ({ description, content: { 'application/json': { schema: schemaOf(schema, 'output') } } });

/** The schema of one SSE event (its name, its id, its data), as a union over the names. */
export function sseEvent(events: Record<string, JsonSchema>): JsonSchema {
  return {
    oneOf: Object.entries(events).map(([name, data]) => ({
      type: 'object',
      title: name,
      properties: { event: { const: name }, id: { type: 'string', description: 'The event number (send it back as Last-Event-ID).' }, data },
      required: ['event', 'data'],
    })),
  };
}

/** An SSE media type: the stream is text; `x-sse-event` is the schema of each of its events. */
export function sseMedia(events: Record<string, JsonSchema>, extra: Json = {}): Json {
  return { schema: { type: 'string', description: 'Server-Sent Events; each event is one item of x-sse-event.' }, 'x-sse-event': sseEvent(events), ...extra };
}

export function sse(description: string, events: Record<string, JsonSchema>, externalDocs?: Json): Json {
  return { description, content: { 'text/event-stream': sseMedia(events, externalDocs ? { 'x-external-docs': externalDocs } : {}) } };
}

/** Events whose shapes are another project's (pi, AG-UI): named here, specified there. */
export function named(names: string[], description: string): Record<string, JsonSchema> {
  return Object.fromEntries(names.map((name) => [name, { type: 'object', properties: { type: { const: name } }, required: ['type'], description }]));
}

export const sessionId = { name: 'id', in: 'path', required: true, description: 'The session.', schema: schemaOf(sessionIdSchema, 'input') };
export const turnId = { name: 'turnId', in: 'path', required: true, description: 'A turn of the session.', schema: schemaOf(turnIdSchema, 'input') };

export function queryParameters(schema: z.ZodMiniObject): Json[] {
  const object = schemaOf(schema, 'input') as { properties: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(object.properties).map(([name, property]) => ({ name, in: 'query', required: object.required?.includes(name) ?? false, schema: property }));
}

