/**
 * `POST /api/stream`: the model proxy that pi-agent-core's `streamProxy` calls (docs/pi-and-agui.md),
 * so a pi agent can reach every model of this deployment with its token alone. One model call, no
 * session: pi keeps the conversation and runs the tools. The request's `model.baseUrl` and `headers`
 * are never fetched; the model must be one of `MODELS`; only the tools pi sends are offered.
 *
 * A door like the others: the call's events come from the agent (`agent/single-call.ts`), and pi's
 * proxy events are their encoder's. pi's client reads a failure before the stream as `{"error": "<sentence>"}` (a string, on this route
 * only); once the stream has begun, every failure is its `error` event, the last one.
 */
import type { IRequest } from 'itty-router';
import { DEFAULT_RETRY_POLICY } from '../../agent/retry-policy';
import { runSingleCall, type SingleCall } from '../../agent/single-call';
import { historyFromPi, piStreamRequestSchema, type PiStreamRequest } from '../../api/pi-stream-request';
import { pickModel, readConfig } from '../../config';
import type { Env } from '../../env';
import { ApiError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { typedSse } from '../../protocol/encoder';
import { ourProviderOf } from '../../protocol/pi-convert';
import { createPiProxyEncoder } from '../../protocol/pi-proxy-encoder';
import { resolveModel } from '../../providers/registry';
import type { ModelHandle } from '../../providers/types';
import { authenticate } from '../auth';
import { admit, reportCall } from '../../users/admission';
import type { Owner } from '../../users/owner';
import { emptyUsage } from '../../agent/usage';
import { readJsonBody } from '../read-json-body';
import { createSseStream } from '../../transport/sse-stream';
import { SSE_HEADERS } from '../../transport/headers';

export async function postPiStream(request: IRequest, env: Env, context: ExecutionContext): Promise<Response> {
  let body: PiStreamRequest;
  let model: ModelHandle;
  let maxRetries: number;
  let owner: Owner;
  try {
    if (request.method !== 'POST') {
      throw new ApiError(405, 'method_not_allowed', `${request.method} is not allowed here. Allowed: POST.`, { headers: { allow: 'POST' } });
    }
    owner = await authenticate(request, env);
    await admit(env, owner, { callsModel: true });
    body = (await readJsonBody(request, piStreamRequestSchema)).data;
    const config = readConfig(env);
    model = resolveModel(pickModel(config, `${ourProviderOf(body.model.provider)}:${body.model.id}`), config, { ai: env.AI });
    maxRetries = config.upstream.maxRetries;
  } catch (error) {
    return piError(error);
  }

  // The client going away stops the model call: nobody is left to read it. Seen by the stream's
  // cancel, and by `request.signal` where the runtime does not cancel the body (see routes/agui.ts).
  const controller = new AbortController();
  const sse = createSseStream({ onGone: () => controller.abort() });
  request.signal.addEventListener('abort', () => controller.abort(), { once: true });
  const encoder = typedSse(createPiProxyEncoder());
  let seq = 0;
  let usage = emptyUsage();
  const call: SingleCall = {
    model,
    system: body.context.systemPrompt ?? '',
    messages: historyFromPi(body.context.messages),
    tools: (body.context.tools ?? []).map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters })),
    signal: controller.signal,
    retry: { ...DEFAULT_RETRY_POLICY, maxRetries },
    sampling: { temperature: body.options?.temperature, maxTokens: body.options?.maxTokens },
    newId,
    now: Date.now,
  };
  // The door: pi's proxy events, an encoder of the one call's events, written as they come.
  const done = runSingleCall(call, (event) => {
    if (event.type === 'model-call-end') usage = event.usage;
    for (const item of encoder.encode(event)) sse.send(item, String(++seq));
  })
    .finally(() => sse.close())
    // The call counts for its user's usage and quotas like any other (docs/users.md).
    .then(() => reportCall(env, owner, model.id, usage));
  context.waitUntil(done);
  return new Response(sse.readable, { headers: SSE_HEADERS });
}

/** This route's error body: `{"error": "<sentence>"}`, which pi's client shows as `Proxy error: <sentence>`. */
function piError(error: unknown): Response {
  if (error instanceof ApiError) return Response.json({ error: error.message }, { status: error.status, headers: error.headers });
  console.error('pi stream request failed', error);
  return Response.json({ error: 'The server failed to answer this request; try again.' }, { status: 500 });
}
