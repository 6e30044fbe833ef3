/**
 * `POST /sessions/:id/turns` (parse, check, hand to the session, return its stream or body), their
 * listing, and the routes of one turn: its events (resume after a drop) and its cancel.
 */
import { plainTurnRequest } from '../../api/plain-turn-request';
import { checkToolNames } from '../../api/tool-names';
import { turnRequestSchema } from '../../api/turn-request';
import { followQuerySchema, idempotencyKeySchema, turnIdSchema, turnsQuerySchema } from '../../api/turn-routes';
import { pickModel, readConfig } from '../../config';
import type { Env } from '../../env';
import { ApiError } from '../../lib/errors';
import { BUILT_IN_TOOL_NAMES } from '../../tools/built-in-names';
import type { AdmittedRequest } from '../admission';
import type { AuthedRequest } from '../auth';
import { failureResponse } from '../error-response';
import { readJsonBody } from '../read-json-body';
import { readQuery } from '../read-query';
import { parseSessionId, sessionStub } from '../session-stub';
import { sessionStreamResponse } from '../session-stream';
import { SSE_HEADERS } from '../../transport/headers';

export async function postTurn(request: AdmittedRequest, env: Env): Promise<Response> {
  const sessionId = parseSessionId(request.params.id);
  const key = parseIdempotencyKey(request.headers.get('idempotency-key'));
  const { data: body, text } = await readJsonBody(request, turnRequestSchema, plainTurnRequest);
  checkToolNames(body.tools ?? [], BUILT_IN_TOOL_NAMES);
  const model = pickModel(readConfig(env), body.model);
  const idempotency = key === undefined ? undefined : { key, hash: await sha256(text) };

  const background = prefersAsync(request.headers.get('prefer'));
  const args = { sessionId, request: body, model, idempotency, ...(background ? { background } : {}), ...(request.today ? { today: request.today } : {}) };
  const result = await sessionStub(env, request.owner, sessionId).startTurn(args);
  if (!result.ok) return failureResponse(result);
  const replayed: Record<string, string> = { ...(result.replayed ? { 'idempotent-replayed': 'true' } : {}), ...(background ? { 'preference-applied': 'respond-async' } : {}) };
  if (result.kind === 'json') return Response.json(result.body, { headers: replayed });
  // Queued, or steered into the running turn: accepted, to be followed at the turn's events.
  if (result.kind === 'accepted') return Response.json(result.body, { status: 202, headers: replayed });
  return sessionStreamResponse(result.body, { headers: { ...SSE_HEADERS, ...replayed } });
}

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

/** RFC 7240's `Prefer: respond-async`, among any other preferences the header lists. */
function prefersAsync(header: string | null): boolean {
  return header !== null && header.split(',').some((preference) => preference.split(';')[0]?.trim().toLowerCase() === 'respond-async');
}

function parseIdempotencyKey(raw: string | null): string | undefined {
  if (raw === null) return undefined;
  const parsed = idempotencyKeySchema.safeParse(raw);
  if (!parsed.success) throw new ApiError(400, 'invalid_idempotency_key', 'An Idempotency-Key is 1 to 255 visible ASCII characters (a UUID is a good choice).');
  return parsed.data;
}

function parseTurnId(raw: string | undefined): string {
  const parsed = turnIdSchema.safeParse(raw);
  if (!parsed.success) throw new ApiError(404, 'turn_not_found', 'No turn has this id.');
  return parsed.data;
}

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}
