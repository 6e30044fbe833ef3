/** `GET /sessions/:id`, `GET /sessions/:id/messages`, `DELETE /sessions/:id`. */
import type { IRequest } from 'itty-router';
import { messagesQuerySchema } from '../../api/messages-query';
import type { Env } from '../../env';
import { ApiError } from '../../lib/errors';
import { jsonError } from '../error-response';
import { LOCAL_USER, parseSessionId, sessionStub } from '../session-stub';

export async function getSession(request: IRequest, env: Env): Promise<Response> {
  const sessionId = parseSessionId(request.params.id);
  const result = await sessionStub(env, LOCAL_USER, sessionId).getSession(sessionId);
  return result.ok ? Response.json(result.session) : jsonError(result.status, result.body);
}

export async function getMessages(request: IRequest, env: Env): Promise<Response> {
  const sessionId = parseSessionId(request.params.id);
  const parsed = messagesQuerySchema.safeParse({ ...request.query });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ApiError(400, 'invalid_query', `The query is not valid: ${issue?.path.join('.') || 'query'}: ${issue?.message}.`);
  }
  const result = await sessionStub(env, LOCAL_USER, sessionId).getMessages(parsed.data);
  if (!result.ok) return jsonError(result.status, result.body);
  return Response.json(result.next === undefined ? { messages: result.messages } : { messages: result.messages, next: result.next });
}

export async function deleteSession(request: IRequest, env: Env): Promise<Response> {
  const sessionId = parseSessionId(request.params.id);
  const result = await sessionStub(env, LOCAL_USER, sessionId).deleteSession();
  return result.ok ? new Response(null, { status: 204 }) : jsonError(result.status, result.body);
}
