/** `GET /sessions/:id`, `GET /sessions/:id/messages`, `DELETE /sessions/:id`. */
import { messagesQuerySchema } from '../../api/messages-query';
import type { Env } from '../../env';
import type { AuthedRequest } from '../auth';
import { failureResponse } from '../error-response';
import { readQuery } from '../read-query';
import { parseSessionId, sessionStub } from '../session-stub';

export async function getSession(request: AuthedRequest, env: Env): Promise<Response> {
  const sessionId = parseSessionId(request.params.id);
  const result = await sessionStub(env, request.owner, sessionId).getSession(sessionId);
  return result.ok ? Response.json(result.session) : failureResponse(result);
}

export async function getMessages(request: AuthedRequest, env: Env): Promise<Response> {
  const sessionId = parseSessionId(request.params.id);
  const query = readQuery(messagesQuerySchema(), request);
  const result = await sessionStub(env, request.owner, sessionId).getMessages(query);
  if (!result.ok) return failureResponse(result);
  return Response.json(result.next === undefined ? { messages: result.messages } : { messages: result.messages, next: result.next });
}

export async function deleteSession(request: AuthedRequest, env: Env): Promise<Response> {
  const sessionId = parseSessionId(request.params.id);
  const result = await sessionStub(env, request.owner, sessionId).deleteSession();
  return result.ok ? new Response(null, { status: 204 }) : failureResponse(result);
}
