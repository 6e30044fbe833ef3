/**
 * A session's turns without a client (docs/background.md): its webhook deliveries and its schedules
 * (`POST`, `GET`, `DELETE`). A request never names a URL to call: the webhook is the deployment's.
 */
import { scheduleRequestSchema } from '../../api/schedule-requests';
import { checkToolNames } from '../../api/tool-names';
import { pickModel, readConfig } from '../../config';
import type { Env } from '../../env';
import { ApiError } from '../../lib/errors';
import { BUILT_IN_TOOL_NAMES } from '../../tools/built-in-names';
import type { AuthedRequest } from '../auth';
import { failureResponse } from '../error-response';
import { readJsonBody } from '../read-json-body';
import { parseSessionId, sessionStub } from '../session-stub';

export async function getDeliveries(request: AuthedRequest, env: Env): Promise<Response> {
  const sessionId = parseSessionId(request.params.id);
  const result = await sessionStub(env, request.owner, sessionId).getDeliveries();
  return result.ok ? Response.json({ deliveries: result.deliveries }) : failureResponse(result);
}

export async function postSchedule(request: AuthedRequest, env: Env): Promise<Response> {
  const sessionId = parseSessionId(request.params.id);
  const { data: body } = await readJsonBody(request, scheduleRequestSchema());
  checkToolNames(body.tools ?? [], BUILT_IN_TOOL_NAMES);
  const model = pickModel(readConfig(env), body.model);
  const result = await sessionStub(env, request.owner, sessionId).createSchedule(sessionId, { ...body, model });
  return result.ok ? Response.json({ scheduleId: result.scheduleId, nextRunAt: result.nextRunAt }, { status: 201 }) : failureResponse(result);
}

export async function getSchedules(request: AuthedRequest, env: Env): Promise<Response> {
  const sessionId = parseSessionId(request.params.id);
  const result = await sessionStub(env, request.owner, sessionId).getSchedules();
  return result.ok ? Response.json({ schedules: result.schedules }) : failureResponse(result);
}

export async function deleteSchedule(request: AuthedRequest, env: Env): Promise<Response> {
  const sessionId = parseSessionId(request.params.id);
  const scheduleId = request.params.scheduleId ?? '';
  if (!/^sch_[0-9a-f]{24}$/.test(scheduleId)) throw new ApiError(404, 'schedule_not_found', 'No schedule has this id.');
  const result = await sessionStub(env, request.owner, sessionId).deleteSchedule(scheduleId);
  return result.ok ? new Response(null, { status: 204 }) : failureResponse(result);
}
