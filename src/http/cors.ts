/**
 * Browser access (`CORS_ORIGINS`): which origins may call the API from a page, with itty-router's
 * `cors` doing the headers. Every route answers an `OPTIONS` preflight (204); an origin not allowed
 * gets no `Access-Control-Allow-Origin`, so the browser refuses the call. Unset: same-origin pages
 * only (the playground is one).
 */
import { cors } from 'itty-router';

export type CorsOrigins = '*' | string[];

const ALLOW_HEADERS = ['authorization', 'content-encoding', 'content-type', 'idempotency-key', 'last-event-id'];
/** What a page may read of a response beyond the simple headers. */
const EXPOSE_HEADERS = ['idempotent-replayed', 'retry-after', 'www-authenticate'];

type Cors = ReturnType<typeof cors>;

const make = (origin: '*' | ((origin: string) => string | undefined)): Cors =>
  cors({ origin, allowMethods: ['GET', 'POST', 'DELETE', 'OPTIONS'], allowHeaders: ALLOW_HEADERS, exposeHeaders: EXPOSE_HEADERS, maxAge: 600 });
const ANY_ORIGIN = make('*');
/** By the configuration's own list (parsed once per env), so a request pays a lookup, not a build. */
const byList = new WeakMap<string[], Cors>();

/** The handlers for a deployment's origins. */
export function corsFor(origins: CorsOrigins): Cors {
  if (origins === '*') return ANY_ORIGIN;
  let handlers = byList.get(origins);
  if (!handlers) {
    handlers = make((origin) => (origins.includes(origin) ? origin : undefined));
    byList.set(origins, handlers);
  }
  return handlers;
}

/**
 * What itty's `corsify` leaves out of an answer: the headers a page may read (on answers to allowed
 * origins), and `Vary: Origin`, since the answer depends on the request's origin.
 */
export function finishCors(response: Response): Response {
  if (response.status === 101) return response;
  try {
    if (response.headers.has('access-control-allow-origin')) response.headers.set('access-control-expose-headers', EXPOSE_HEADERS.join(','));
    response.headers.append('vary', 'Origin');
    return response;
  } catch {
    // Headers that cannot change (a response fetched from elsewhere): a copy can.
    return finishCors(new Response(response.body, response));
  }
}
