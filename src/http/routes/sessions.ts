/** `GET /sessions/:id`, `GET /sessions/:id/messages`, `DELETE /sessions/:id`. */
import { messagesQuerySchema } from '../../api/messages-query';
import type { Env } from '../../env';
import type { AuthedRequest } from '../auth';
import { ApiError } from '../../lib/errors';
import { jsonError } from '../error-response';
import { parseSessionId, sessionStub } from '../session-stub';

export async function getSession(request: AuthedRequest, env: Env): Promise<Response> {
  const sessionId = parseSessionId(request.params.id);
  const result = await sessionStub(env, request.userId, sessionId).getSession(sessionId);
  return result.ok ? Response.json(result.session) : jsonError(result.status, result.body);
}

export async function getMessages(request: AuthedRequest, env: Env): Promise<Response> {
  const sessionId = parseSessionId(request.params.id);
  const parsed = messagesQuerySchema.safeParse({ ...request.query });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ApiError(400, 'invalid_query', `The query is not valid: ${issue?.path.join('.') || 'query'}: ${issue?.message}.`);
  }
  const result = await sessionStub(env, request.userId, sessionId).getMessages(parsed.data);
  if (!result.ok) return jsonError(result.status, result.body);
  return Response.json(result.next === undefined ? { messages: result.messages } : { messages: result.messages, next: result.next });
}

export async function deleteSession(request: AuthedRequest, env: Env): Promise<Response> {
  const sessionId = parseSessionId(request.params.id);
  const result = await sessionStub(env, request.userId, sessionId).deleteSession();
  return result.ok ? new Response(null, { status: 204 }) : jsonError(result.status, result.body);
}
