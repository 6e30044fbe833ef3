/** The Worker's request handling: CORS, the router (auth, validation, the routes) and the request's log line. */
import { readConfig } from '../config';
import type { Env } from '../env';
import { log } from '../lib/log';
import { corsFor, finishCors, type CorsOrigins } from './cors';
import { router } from './router';

export async function handleRequest(request: Request, env: Env, context: ExecutionContext): Promise<Response> {
  const started = Date.now();
  const origins = corsOrigins(env);
  const { preflight, corsify } = corsFor(origins);
  const response = preflight(request) ?? (await router.fetch(request, env, context));
  // Written once the response is on its way: the line is not worth a delay before the first byte.
  const latencyMs = Date.now() - started;
  context.waitUntil(afterResponse(() => logRequest(request, response, latencyMs)));
  // Without CORS_ORIGINS no answer gets an allowed origin: `corsify` (which copies the response) is skipped.
  return finishCors(origins !== '*' && origins.length === 0 ? response : corsify(response, request));
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

function corsOrigins(env: Env): CorsOrigins {
  try {
    return readConfig(env).corsOrigins;
  } catch {
    return []; // The route answers the configuration error itself.
  }
}

function logRequest(request: Request, response: Response, latencyMs: number): void {
  const path = new URL(request.url).pathname;
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
