/**
 * Browser access (`CORS_ORIGINS`): which origins may call the API from a page, with itty-router's
 * `cors` doing the headers. Every route answers an `OPTIONS` preflight (204); an origin not allowed
 * gets no `Access-Control-Allow-Origin`, so the browser refuses the call. Unset: same-origin pages
 * only (the playground is one).
 */
import { cors } from 'itty-router';

export type CorsOrigins = '*' | string[];

/**
 * What a page's request may carry: the turns API's, and the doors' own, which their clients send on
 * every call (A2A's version and extensions, MCP's version, session and, in its 2026-07-28 revision,
 * method and name); without them a browser refuses the call after the preflight.
 */
const ALLOW_HEADERS = [
  'authorization', 'content-encoding', 'content-type', 'idempotency-key', 'last-event-id',
  'a2a-extensions', 'a2a-version', 'x-a2a-extensions',
  'mcp-method', 'mcp-name', 'mcp-protocol-version', 'mcp-session-id',
];
/** MCP's revision also sends the arguments a tool marks as `Mcp-Param-<Name>`: named by the tool, so allowed by their prefix (a few dozen at most). */
const PARAM_HEADER = 'mcp-param-';
/** What a page may read of a response beyond the simple headers. */
const EXPOSE_HEADERS = ['idempotent-replayed', 'retry-after', 'www-authenticate'];

type Cors = ReturnType<typeof cors>;

function make(origin: '*' | ((origin: string) => string | undefined)): Cors {
  const { corsify, preflight } = cors({ origin, allowMethods: ['GET', 'POST', 'DELETE', 'OPTIONS'], allowHeaders: ALLOW_HEADERS, exposeHeaders: EXPOSE_HEADERS, maxAge: 600 });
  return {
    corsify,
    preflight: (request) => {
      const answer = preflight(request);
      const asked = answer && request.headers.get('access-control-request-headers');
      const params = asked ? asked.split(',').map((name) => name.trim().toLowerCase()).filter((name) => name.startsWith(PARAM_HEADER) && name.length <= 128).slice(0, 32) : [];
      if (answer && params.length > 0) answer.headers.set('access-control-allow-headers', [...ALLOW_HEADERS, ...params].join(','));
      return answer;
    },
  };
}
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
