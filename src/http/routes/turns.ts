/** `POST /sessions/:id/turns`: parse, check, hand to the session, return its stream or body. */
import { turnRequestSchema, type ClientTool } from '../../api/turn-request';
import { pickModel, readConfig } from '../../config';
import type { Env } from '../../env';
import type { AuthedRequest } from '../auth';
import { ApiError } from '../../lib/errors';
import { defaultTools } from '../../tools/default-tools';
import { jsonError } from '../error-response';
import { readJsonBody } from '../read-json-body';
import { parseSessionId, sessionStub } from '../session-stub';

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  // Proxies that buffer (nginx) would hold the stream back.
  'x-accel-buffering': 'no',
};

export async function postTurn(request: AuthedRequest, env: Env): Promise<Response> {
  const sessionId = parseSessionId(request.params.id);
  const body = await readJsonBody(request, turnRequestSchema);
  checkToolNames(body.tools ?? [], defaultTools.names());
  const model = pickModel(readConfig(env), body.model);

  const result = await sessionStub(env, request.userId, sessionId).startTurn({ sessionId, request: body, model });
  if (!result.ok) return jsonError(result.status, result.body);
  if (result.kind === 'json') return Response.json(result.body);
  return new Response(result.body, { headers: SSE_HEADERS });
}

/** Seed 000: a tool name must be unique across the request's client tools and the agent's own. */
function checkToolNames(tools: ClientTool[], serverNames: string[]): void {
  const seen = new Set<string>();
  const clashes = new Set<string>();
  for (const { name } of tools) {
    if (seen.has(name) || serverNames.includes(name)) clashes.add(name);
    seen.add(name);
  }
  if (clashes.size === 0) return;
  const names = [...clashes];
  throw new ApiError(400, 'tool_name_conflict', `Tool names must be unique across your tools and the agent's (${serverNames.join(', ')}): ${names.join(', ')}.`, {
    details: { names, serverTools: serverNames },
  });
}
