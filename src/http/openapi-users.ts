/** The OpenAPI paths of the caller's own: their sessions, usage, view, export and erasure (docs/users.md). */
import { sessionListSchema, usageReportSchema, userViewSchema } from '../api/user-responses';
import { usersQuerySchema } from '../api/users-query';
import { errors, json, queryParameters, type Json } from './openapi-parts';

export function userPaths(): Json {
  return {
    '/sessions': {
      get: {
        operationId: 'listSessions',
        summary: "The caller's sessions, most recently changed first, a page at a time",
        description: 'Sub-agents’ sessions and forks are listed with `parentSessionId`. Once a turn’s response has ended, the list shows it.',
        parameters: queryParameters(usersQuerySchema.list),
        responses: { '200': json(sessionListSchema, 'A page of the list.'), ...errors('400', '401', '500') },
      },
    },
    '/usage': {
      get: {
        operationId: 'getUsage',
        summary: "The caller's usage per UTC day and model, with its cost from PRICES",
        description: 'Every model call counts, through every door: turns, Harness, socket, AG-UI, pi’s `/api/stream`, sub-agents, titles and summaries. `from` and `to` are UTC days, both included (default: today; at most 366 days).',
        parameters: queryParameters(usersQuerySchema.usage),
        responses: { '200': json(usageReportSchema, 'The days, oldest first, and their total.'), ...errors('400', '401', '500') },
      },
    },
    '/users/me': {
      get: {
        operationId: 'getMe',
        summary: 'Who the caller is: their session count, today’s usage, their limits',
        responses: { '200': json(userViewSchema, 'The caller.'), ...errors('401', '500') },
      },
      delete: {
        operationId: 'deleteMe',
        summary: 'Erase every session of the caller (running turns are stopped); the usage numbers stay',
        responses: {
          '200': { description: 'Erased.', content: { 'application/json': { schema: { type: 'object', properties: { deletedSessions: { type: 'integer' } }, required: ['deletedSessions'] } } } },
          ...errors('401', '500', '503'),
        },
      },
    },
    '/users/me/export': {
      get: {
        operationId: 'exportMe',
        summary: 'Everything the caller has, as JSON lines, streamed',
        description: 'For each session: a `{"type":"session", ...}` line (the fields of the list), then a `{"type":"message", "sessionId", "id", "parentId"?, "createdAt", ...}` line per message of every branch, then its `note`, `rule` and `schedule` lines.',
        responses: { '200': { description: 'JSON lines.', content: { 'application/x-ndjson': { schema: { type: 'string' } } } }, ...errors('401', '500') },
      },
    },
  };
}
