/**
 * `POST /sessions/:id/turns`: parse, check, hand to the session, return its stream or body. A plain
 * request loads no zod: its body is recognised by hand, its ids and header checked against the
 * patterns of `turn-fields.ts`, the configuration read by `loadConfig`. The turn request's schema is
 * loaded for any other body (bench/PROFILE.md, "A Worker's turn without zod"). The session's other
 * turn routes are in `one-turn.ts`.
 */
import { plainTurnRequest } from '../../api/plain-turn-request';
import { checkToolNames } from '../../api/tool-names';
import { IDEMPOTENCY_KEY } from '../../api/turn-fields';
import { pickModel } from '../../config-vars';
import type { Env } from '../../env';
import { ApiError } from '../../lib/errors';
import { loadConfig } from '../../load-config';
import { BUILT_IN_TOOL_NAMES } from '../../tools/built-in-names';
import type { AdmittedRequest } from '../admission';
import { failureResponse } from '../error-response';
import { readJsonBody } from '../read-json-body';
import { parseSessionId, sessionStub } from '../session-stub';
import { sessionStreamResponse } from '../session-stream';
import { SSE_HEADERS } from '../../transport/headers';

export async function postTurn(request: AdmittedRequest, env: Env): Promise<Response> {
  const sessionId = parseSessionId(request.params.id);
  const key = parseIdempotencyKey(request.headers.get('idempotency-key'));
  const { data: body, text } = await readJsonBody(request, async () => (await import('../../api/turn-request')).turnRequestSchema(), plainTurnRequest);
  checkToolNames(body.tools ?? [], BUILT_IN_TOOL_NAMES);
  const model = pickModel(await loadConfig(env), body.model);
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

/** RFC 7240's `Prefer: respond-async`, among any other preferences the header lists. */
function prefersAsync(header: string | null): boolean {
  return header !== null && header.split(',').some((preference) => preference.split(';')[0]?.trim().toLowerCase() === 'respond-async');
}

function parseIdempotencyKey(raw: string | null): string | undefined {
  if (raw === null) return undefined;
  if (!IDEMPOTENCY_KEY.test(raw)) throw new ApiError(400, 'invalid_idempotency_key', 'An Idempotency-Key is 1 to 255 visible ASCII characters (a UUID is a good choice).');
  return raw;
}

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}
