/**
 * `POST /harness/chat` (docs/harness.md): a run of the session's agent, told in the 31
 * events of the Harness chat endpoint, as SSE `data:` lines (`Accept: text/event-stream`) or one JSON
 * array written as they happen. The session is the one the turns API reaches with the same user and
 * id. Where auth is on, `userId` must be the token's user; where it is off (loopback, no
 * AUTH_SECRET), `userId` names the user, as the protocol has it.
 */
import type { IRequest } from 'itty-router';
import { harnessRequestSchema } from '../../api/harness-request';
import { turnRequestOf } from '../../api/harness-turn';
import { pickModel, readConfig, type Config } from '../../config';
import type { Env } from '../../env';
import { ApiError } from '../../lib/errors';
import { authenticate } from '../auth';
import { failureResponse } from '../error-response';
import { harnessFormatOf } from '../../transport/harness-framing';
import { admit } from '../../users/admission';
import { readJsonBody } from '../read-json-body';
import { sessionStub } from '../session-stub';
import { sessionStreamResponse } from '../session-stream';
import { JSON_STREAM_HEADERS, SSE_HEADERS } from '../../transport/headers';

/** The JSON array is written as events happen: nothing on the way may buffer or compress it. */

export async function postHarnessChat(request: IRequest, env: Env): Promise<Response> {
  const tokenOwner = await authenticate(request, env);
  const { data: body } = await readJsonBody(request, harnessRequestSchema);
  if (env.AUTH_SECRET && body.userId !== tokenOwner.userId) {
    throw new ApiError(403, 'user_mismatch', 'userId must be the user the token was issued to.');
  }
  // Without AUTH_SECRET (local only), the body names the user.
  const owner = env.AUTH_SECRET ? tokenOwner : { ...tokenOwner, userId: body.userId };
  const today = await admit(env, owner, { callsModel: true });
  const config = readConfig(env);
  const model = modelNamed(config, body.chatModel?.name);
  const turn = turnRequestOf(body);
  const format = harnessFormatOf(request.headers.get('accept'));
  const temperature = body.chatModel?.temperature;
  const result = await sessionStub(env, owner, body.sessionId).startHarnessRun({
    sessionId: body.sessionId,
    ...(today ? { today } : {}),
    request: turn,
    model,
    format,
    ...(temperature !== undefined ? { sampling: { temperature } } : {}),
  });
  if (!result.ok) return failureResponse(result);
  return sessionStreamResponse(result.body, { headers: format === 'sse' ? SSE_HEADERS : JSON_STREAM_HEADERS });
}

/**
 * `chatModel.name` within `MODELS`: a `provider:model` id, or a model's own name (`gpt-4o` for
 * `openai:gpt-4o`) when exactly one configured model has it. No name: the default model.
 */
function modelNamed(config: Config, name: string | undefined): string {
  const matches = name === undefined ? [] : config.allowedModels.filter((id) => id.slice(id.indexOf(':') + 1) === name);
  return pickModel(config, matches.length === 1 ? matches[0] : name);
}
