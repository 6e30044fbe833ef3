/**
 * A session's branches (docs/branches.md): `GET /sessions/:id/branches`, `POST
 * /sessions/:id/branches/:leafId/activate`, and `POST /sessions/:id/fork`, which hands the copy the
 * source session gives to a new session of the same user.
 */
import { forkRequestSchema } from '../../api/branch-requests';
import { messageIdSchema } from '../../api/message-ids';
import type { Env } from '../../env';
import { ApiError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import type { AuthedRequest } from '../auth';
import { failureResponse } from '../error-response';
import { readJsonBody } from '../read-json-body';
import { parseSessionId, sessionStub } from '../session-stub';

export async function getBranches(request: AuthedRequest, env: Env): Promise<Response> {
  const sessionId = parseSessionId(request.params.id);
  const result = await sessionStub(env, request.owner, sessionId).getBranches();
  return result.ok ? Response.json({ branches: result.branches }) : failureResponse(result);
}

export async function activateBranch(request: AuthedRequest, env: Env): Promise<Response> {
  const sessionId = parseSessionId(request.params.id);
  const leafId = messageIdSchema.safeParse(request.params.leafId);
  if (!leafId.success) throw new ApiError(404, 'branch_not_found', 'No branch ends at this id (GET .../branches lists their leafId).');
  const result = await sessionStub(env, request.owner, sessionId).activateBranch(leafId.data);
  if (!result.ok) return failureResponse(result);
  const { ok: _ok, ...branch } = result;
  return Response.json(branch);
}

export async function postFork(request: AuthedRequest, env: Env): Promise<Response> {
  const sourceId = parseSessionId(request.params.id);
  // An empty body is a fork of the whole active branch to a new id.
  const empty = !request.headers.has('content-type') && (request.headers.get('content-length') ?? '0') === '0';
  const body = empty ? {} : (await readJsonBody(request, forkRequestSchema)).data;
  const sessionId = body.sessionId ?? newId('ses');
  const copy = await sessionStub(env, request.owner, sourceId).exportBranch(sourceId, body.upTo);
  if (!copy.ok) return failureResponse(copy);
  const { ok: _ok, ...branch } = copy;
  const forked = await sessionStub(env, request.owner, sessionId).importFork(sessionId, branch);
  return forked.ok ? Response.json({ sessionId: forked.sessionId }, { status: 201 }) : failureResponse(forked);
}
