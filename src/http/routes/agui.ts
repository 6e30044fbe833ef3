/**
 * `POST /ag-ui`: AG-UI's `RunAgentInput` in, its events out over SSE (docs/pi-and-agui.md). The
 * thread is the session (`threadId` is the session id); `forwardedProps.model` may pick a model of
 * `MODELS`. The session takes what the run brings that it has not seen (see `session/agui-door.ts`).
 */
import { runAgentInputSchema } from '../../api/agui-request';
import { pickModel, readConfig } from '../../config';
import type { Env } from '../../env';
import type { AdmittedRequest } from '../admission';
import { cancelOnLeave } from '../cancel-on-leave';
import { failureResponse } from '../error-response';
import { readJsonBody } from '../read-json-body';
import { sessionStub } from '../session-stub';
import { SSE_HEADERS } from '../../transport/headers';

export async function postAgui(request: AdmittedRequest, env: Env, context: ExecutionContext): Promise<Response> {
  const { data: input } = await readJsonBody(request, runAgentInputSchema);
  const model = pickModel(readConfig(env), input.forwardedProps?.model);
  const stub = sessionStub(env, request.owner, input.threadId);
  const result = await stub.startAguiRun({ sessionId: input.threadId, input, model, ...(request.today ? { today: request.today } : {}) });
  if (!result.ok) return failureResponse(result);
  // Kept alive past the request, which a disconnect ends. A turn that already stopped answers 409.
  const cancel = () => context.waitUntil(stub.cancelTurn(result.turnId).catch(() => {}));
  request.signal.addEventListener('abort', cancel, { once: true });
  return new Response(cancelOnLeave(result.body, cancel), { headers: SSE_HEADERS });
}
