/** The Worker's request handling: CORS, the router (auth, validation, the routes) and the request's log line. */
import type { Env } from '../env';
import { log } from '../lib/log';
import { cut } from '../lib/quoted';
import { loadConfig } from '../load-config';
import { corsFor, finishCors, type CorsOrigins } from './cors';
import { router } from './router';
import { isSessionStream } from './session-stream';

export async function handleRequest(request: Request, env: Env, context: ExecutionContext): Promise<Response> {
  const started = Date.now();
  const origins = await corsOrigins(env);
  const { preflight, corsify } = corsFor(origins);
  const response = preflight(request) ?? (request.method === 'HEAD' ? await head(request, env, context) : await router.fetch(request, env, context));
  const latencyMs = Date.now() - started;
  const writeLine = () => logRequest(request, response, latencyMs);
  // Without CORS_ORIGINS no answer gets an allowed origin: `corsify` (which copies the response) is skipped.
  const answer = finishCors(origins !== '*' && origins.length === 0 ? response : corsify(response, request));
  if (isSessionStream(response) && answer.body) return loggedOnceSent(answer, answer.body, request.signal, context, writeLine);
  // Written once the response is on its way: the line is not worth a delay before the first byte.
  context.waitUntil(afterResponse(writeLine));
  return answer;
}

/**
 * A session's stream, its log line written once it has been sent. A line written while a turn's
 * stream waits for its first event delays that event by what the line costs (measured: half a
 * millisecond, more when the turn runs cold, bench/PROFILE.md), and a timer's "later" comes when it
 * comes. The stream goes through the runtime's own pipe, with no JavaScript per chunk.
 */
function loggedOnceSent(response: Response, body: ReadableStream<Uint8Array>, clientGone: AbortSignal, context: ExecutionContext, writeLine: () => void): Response {
  const { readable, writable } = new IdentityTransformStream();
  // A client that leaves ends the pipe (workerd aborts the request's signal even where it does not
  // cancel the body, workerd#6832), and the line says how the request was answered all the same.
  context.waitUntil(
    body
      .pipeTo(writable, { signal: clientGone })
      .catch(() => {})
      .then(writeLine),
  );
  return new Response(readable, response);
}

/**
 * HEAD, as RFC 9110 asks of every server: the GET's answer, status and headers, without its body
 * (whose stream is cancelled, a session's stream included). Monitors ask `/healthz` so.
 */
async function head(request: Request, env: Env, context: ExecutionContext): Promise<Response> {
  const asGet = new Request(request, { method: 'GET' });
  const response = await router.fetch(asGet, env, context);
  // The auth middleware names the user on the request it was given; the log line reads it here.
  const user = (asGet as Request & { userId?: string }).userId;
  if (user) (request as Request & { userId?: string }).userId = user;
  void response.body?.cancel().catch(() => {});
  return new Response(null, response);
}

/** Runs `work` in a later task than the one that returns the response. */
function afterResponse(work: () => void): Promise<void> {
  return new Promise((resolve) =>
    setTimeout(() => {
      work();
      resolve();
    }, 0),
  );
}

async function corsOrigins(env: Env): Promise<CorsOrigins> {
  try {
    return (await loadConfig(env)).corsOrigins;
  } catch {
    return []; // The route answers the configuration error itself.
  }
}

function logRequest(request: Request, response: Response, latencyMs: number): void {
  // A path of megabytes is written down by its start: a client chooses it, the logs pay for it.
  const path = cut(new URL(request.url).pathname, 512);
  const record: Parameters<typeof log>[0] = { kind: 'request', method: request.method, path, status: response.status, latencyMs };
  // Set by the auth middleware on the request it was given.
  const user = (request as Request & { userId?: string }).userId;
  if (user) record.user = user;
  const session = /^\/sessions\/([A-Za-z0-9._:-]{1,128})(\/|$)/.exec(path)?.[1];
  if (session) record.session = session;
  const errorCode = response.headers.get('x-error-code');
  if (errorCode) record.errorCode = errorCode;
  log(record);
}
