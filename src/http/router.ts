/** The route table. Handlers return a Response or throw `ApiError`; `catch` formats every error. */
import { Router, type IRequest } from 'itty-router';
import type { Env } from '../env';
import { ApiError } from '../lib/errors';
import { withUser } from './auth';
import { errorResponse } from './error-response';
import { withAdmission } from './admission';
import { getOpenApi } from './openapi-route';
import { postTurn } from './routes/turns';

type Args = [Env, ExecutionContext];
type Handler<Request extends IRequest> = (request: Request, env: Env, context: ExecutionContext) => Response | Promise<Response>;

/**
 * A route whose module is evaluated on its first request, not when an isolate starts: the doors
 * besides the turns API, which most deployments' requests never use, and the routes besides a
 * turn's. The bundle is one file either way; what waits is the modules' top-level work
 * (docs/operations.md).
 */
function lazy<Name extends string, Request extends IRequest>(load: () => Promise<Record<Name, Handler<Request>>>, name: Name): Handler<Request> {
  return async (request, env, context) => (await load())[name](request, env, context);
}

const agentCard = lazy(() => import('./a2a-card'), 'agentCard');
const postA2a = lazy(() => import('./routes/a2a'), 'postA2a');
const handleMcp = lazy(() => import('./routes/mcp'), 'handleMcp');
const postPiStream = lazy(() => import('./routes/pi-stream'), 'postPiStream');
const postAgui = lazy(() => import('./routes/agui'), 'postAgui');
const postHarnessChat = lazy(() => import('./routes/harness'), 'postHarnessChat');
// The session's other routes, the user's and the chat socket's: an isolate that serves turns needs
// none of them, and their schemas were most of the route table's evaluation (bench/PROFILE.md).
const branches = () => import('./routes/branches');
const sessions = () => import('./routes/sessions');
const users = () => import('./routes/users');
const background = () => import('./routes/background');
const socket = () => import('./routes/socket');
const oneTurn = () => import('./routes/one-turn');

/** Handlers that run before a route's own and answer nothing: they name no method a path takes. */
const MIDDLEWARE: ReadonlySet<unknown> = new Set([withUser, withAdmission]);
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * A request no route answered: a 405 when the path is a route's, naming the methods the table has for
 * it, in its `Allow` header too (RFC 9110), HEAD wherever GET is (`handle-request.ts`); else a 404.
 * Read from the table, so a route's methods are written once.
 */
function noRoute(request: IRequest): never {
  const path = new URL(request.url).pathname;
  const taken = new Set(router.routes.filter(([method, pattern, handlers]) => method !== 'ALL' && !handlers.every((handler) => MIDDLEWARE.has(handler)) && pattern.test(path)).map(([method]) => method));
  const methods = METHODS.filter((method) => taken.has(method));
  if (methods.length === 0) throw new ApiError(404, 'not_found', `No route for ${request.method} ${path}.`);
  const allowed = methods.includes('GET') ? [...methods, 'HEAD'] : methods;
  throw new ApiError(405, 'method_not_allowed', `${request.method} is not allowed here. Allowed: ${allowed.join(', ')}.`, {
    details: { allowed },
    headers: { allow: allowed.join(', ') },
  });
}

export const router = Router<IRequest, Args>({ catch: errorResponse });

// Matched in order, each route's pattern against the path: the turns API first, since most requests
// are turns and a new isolate compiles each pattern a request is matched against (twice: V8 compiles
// a pattern again, to machine code, at its second use). The session's routes keep their own order:
// its socket, which authenticates on its own, before the user's check, then the admission.
router
  // The socket authenticates on its own: a refused upgrade closes with a code a browser can read.
  .get('/sessions/:id/ws', lazy(socket, 'openSocket'))
  // `/sessions/*` takes `/sessions` too: the list is authenticated here, once.
  .all('/sessions/*', withUser)
  .post('/sessions/*', withAdmission)
  .post('/sessions/:id/turns', postTurn)
  .get('/healthz', () => Response.json({ ok: true }))
  .get('/openapi.json', getOpenApi)
  // The playground is a static asset; the root leads to it.
  .get('/', (request: IRequest) => Response.redirect(new URL('/playground/', request.url).href, 302))
  // The A2A door (docs/a2a.md): its card is public; its endpoint authenticates on its own.
  .get('/.well-known/agent-card.json', agentCard)
  // Where A2A's versions before 0.3 looked for it (their clients read the v0.3 card).
  .get('/.well-known/agent.json', agentCard)
  .post('/a2a', postA2a)
  // The MCP door authenticates on its own, and its transport answers each method (docs/mcp.md).
  .all('/mcp', handleMcp)
  // pi's model proxy answers every error in its own shape, so it authenticates on its own.
  .all('/api/stream', postPiStream)
  .all('/usage', withUser)
  .all('/users/*', withUser)
  .get('/sessions', lazy(users, 'listSessions'))
  .get('/usage', lazy(users, 'getUsage'))
  .get('/users/me', lazy(users, 'getMe'))
  .delete('/users/me', lazy(users, 'deleteMe'))
  .get('/users/me/export', lazy(users, 'exportMe'))
  .all('/ag-ui', withUser)
  .post('/ag-ui', withAdmission)
  .post('/ag-ui', postAgui)
  .post('/harness/chat', postHarnessChat)
  .get('/sessions/:id/turns', lazy(oneTurn, 'getTurns'))
  .get('/sessions/:id/turns/:turnId/events', lazy(oneTurn, 'getTurnEvents'))
  .get('/sessions/:id/turns/:turnId', lazy(oneTurn, 'getTurn'))
  .get('/sessions/:id/deliveries', lazy(background, 'getDeliveries'))
  .post('/sessions/:id/schedules', lazy(background, 'postSchedule'))
  .get('/sessions/:id/schedules', lazy(background, 'getSchedules'))
  .delete('/sessions/:id/schedules/:scheduleId', lazy(background, 'deleteSchedule'))
  .post('/sessions/:id/turns/:turnId/cancel', lazy(oneTurn, 'cancelTurn'))
  .get('/sessions/:id/messages', lazy(sessions, 'getMessages'))
  .get('/sessions/:id/branches', lazy(branches, 'getBranches'))
  .post('/sessions/:id/branches/:leafId/activate', lazy(branches, 'activateBranch'))
  .post('/sessions/:id/fork', lazy(branches, 'postFork'))
  .get('/sessions/:id', lazy(sessions, 'getSession'))
  .delete('/sessions/:id', lazy(sessions, 'deleteSession'))
  .all('*', noRoute);
