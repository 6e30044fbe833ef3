/**
 * The session's turns listed, and the routes of one turn: its events (resume after a drop), its state
 * and its cancel. Loaded by their first request (`router.ts`): a Worker isolate that only starts turns
 * never loads their queries' schemas.
 */
import { followQuerySchema, turnIdSchema, turnsQuerySchema } from '../../api/turn-routes';
import type { Env } from '../../env';
import { ApiError } from '../../lib/errors';
import type { AuthedRequest } from '../auth';
import { failureResponse } from '../error-response';
import { readQuery } from '../read-query';
import { parseSessionId, sessionStub } from '../session-stub';
import { sessionStreamResponse } from '../session-stream';
import { SSE_HEADERS } from '../../transport/headers';

/** `GET /sessions/:id/turns`: a page of the session's turns, newest first (docs/background.md). */
export async function getTurns(request: AuthedRequest, env: Env): Promise<Response> {
  const sessionId = parseSessionId(request.params.id);
  const { limit, cursor, status, since } = readQuery(turnsQuerySchema(), request);
  const filter = { ...(cursor === undefined ? {} : { cursor }), ...(status ? { state: status } : {}), ...(since ? { changedSince: Date.parse(since) } : {}) };
  const result = await sessionStub(env, request.owner, sessionId).listTurns({ limit, ...filter });
  if (!result.ok) return failureResponse(result);
  return Response.json(result.next === undefined ? { turns: result.turns } : { turns: result.turns, next: result.next });
}

/** `GET /sessions/:id/turns/:turnId/events`: what came after `Last-Event-ID` (or `?after=`), then live. */
export async function getTurnEvents(request: AuthedRequest, env: Env): Promise<Response> {
  const sessionId = parseSessionId(request.params.id);
  const turnId = parseTurnId(request.params.turnId);
  const query = readQuery(followQuerySchema(), request);
  const lastEventId = request.headers.get('last-event-id');
  if (lastEventId !== null && !/^\d{1,9}$/.test(lastEventId)) {
    throw new ApiError(400, 'invalid_last_event_id', 'Last-Event-ID must be the id of an event of this turn (a number).');
  }
  const after = lastEventId !== null ? Number(lastEventId) : query.after;
  const result = await sessionStub(env, request.owner, sessionId).followTurn(turnId, after, query.stream);
  if (!result.ok) return failureResponse(result);
  return sessionStreamResponse(result.body, { headers: SSE_HEADERS });
}

/** `POST /sessions/:id/turns/:turnId/cancel`: answers once the turn has stopped. */
export async function cancelTurn(request: AuthedRequest, env: Env): Promise<Response> {
  const sessionId = parseSessionId(request.params.id);
  const turnId = parseTurnId(request.params.turnId);
  const result = await sessionStub(env, request.owner, sessionId).cancelTurn(turnId);
  return result.ok ? Response.json(result.turn) : failureResponse(result);
}

/** `GET /sessions/:id/turns/:turnId`: the turn's state and, once it ended, its JSON answer (docs/background.md). */
export async function getTurn(request: AuthedRequest, env: Env): Promise<Response> {
  const sessionId = parseSessionId(request.params.id);
  const result = await sessionStub(env, request.owner, sessionId).getTurn(parseTurnId(request.params.turnId));
  return result.ok ? Response.json(result.turn) : failureResponse(result);
}

function parseTurnId(raw: string | undefined): string {
  const parsed = turnIdSchema.safeParse(raw);
  if (!parsed.success) throw new ApiError(404, 'turn_not_found', 'No turn has this id.');
  return parsed.data;
}
