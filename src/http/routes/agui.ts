/**
 * `POST /ag-ui`: AG-UI's `RunAgentInput` in, its events out over SSE (docs/pi-and-agui.md). The
 * thread is the session (`threadId` is the session id); `forwardedProps.model` may pick a model of
 * `MODELS`. The session takes what the run brings that it has not seen (see `session/agui-door.ts`).
 */
import { runAgentInputSchema } from '../../api/agui-request';
import { pickModel, readConfig } from '../../config';
import type { Env } from '../../env';
import type { AdmittedRequest } from '../admission';
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

/**
 * The run's stream, relayed: when the client leaves (AG-UI's way to stop a run), the turn is
 * cancelled as on the other doors. A cancel of the stream that comes from the session object does
 * not reach the object itself, so the Worker, which sees its client go, tells it: by the body's
 * cancel, and by `request.signal` (`enable_request_signal`), which workerd aborts on a disconnect
 * even where it does not cancel the body (behind `wrangler dev`'s proxy; workerd#6832).
 */
function cancelOnLeave(body: ReadableStream<Uint8Array>, cancel: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    async cancel(reason) {
      cancel();
      await reader.cancel(reason).catch(() => {});
    },
  });
}
