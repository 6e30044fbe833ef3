/**
 * `GET /sessions/:id/ws`: the chat socket (docs/chat-socket.md). The Worker authenticates the upgrade and hands it
 * to the session's Durable Object, which holds the socket with the Hibernation API. Browsers cannot
 * set headers on a WebSocket, so the token may also come as a subprotocol entry `bearer.<token>`
 * next to `agent-chat`, which the server selects. A refused upgrade still completes, then closes at
 * once with an `error` frame and close code 4000 + the HTTP status (4401, 4403, 4400, 4429): a browser
 * sees neither the status nor the body of a failed handshake, but it does see a close code and reason.
 * A client that offers subprotocols gets one it offered or none of this: a browser drops a
 * connection whose `101` selects a protocol it did not offer, or selects none of those it did.
 */
import type { IRequest } from 'itty-router';
import type { Env } from '../../env';
import { ApiError } from '../../lib/errors';
import { loadConfig } from '../../load-config';
import { errorFrame } from '../../protocol/socket-frames';
import { SOCKET_EXPIRES_HEADER, SOCKET_SESSION_HEADER, SOCKET_USER_HEADER } from '../../session/socket-upgrade';
import { bearerToken, isLoopback, verifyToken } from '../auth';
import { admit } from '../../users/admission';
import { sessionObject } from '../../users/owner';
import { parseSessionId } from '../session-stub';

export const SOCKET_PROTOCOL = 'agent-chat';
const TOKEN_PREFIX = 'bearer.';

export async function openSocket(request: IRequest, env: Env): Promise<Response> {
  if (request.headers.get('upgrade')?.toLowerCase() !== 'websocket') {
    throw new ApiError(426, 'upgrade_required', 'This route is a WebSocket: connect with a WebSocket client (Upgrade: websocket).', {
      headers: { upgrade: 'websocket' },
    });
  }
  const protocols = (request.headers.get('sec-websocket-protocol') ?? '').split(',').map((entry) => entry.trim()).filter(Boolean);
  if (protocols.length > 0 && !protocols.includes(SOCKET_PROTOCOL)) {
    throw new ApiError(400, 'unsupported_subprotocol', `This socket speaks the subprotocol "${SOCKET_PROTOCOL}": offer it (with "${TOKEN_PREFIX}<token>" beside it if you send a token that way), or offer none.`);
  }
  const selected: HeadersInit = protocols.length > 0 ? { 'sec-websocket-protocol': SOCKET_PROTOCOL } : {};
  try {
    const sessionId = parseSessionId(request.params.id);
    const token = bearerToken(request) ?? protocols.find((entry) => entry.startsWith(TOKEN_PREFIX))?.slice(TOKEN_PREFIX.length);
    const { expiresAt, ...owner } = await verifyToken(token, request, env);
    const { userId } = owner;
    await checkOrigin(request, env);
    await admit(env, owner, { callsModel: false });
    const upgraded = await sessionObject(env, owner, sessionId).fetch(request.url, {
      headers: {
        upgrade: 'websocket',
        [SOCKET_SESSION_HEADER]: sessionId,
        [SOCKET_USER_HEADER]: userId,
        ...(expiresAt !== undefined ? { [SOCKET_EXPIRES_HEADER]: String(expiresAt) } : {}),
      },
    });
    if (!upgraded.webSocket) throw new Error(`the session object answered the upgrade with ${upgraded.status}`);
    return new Response(null, { status: 101, webSocket: upgraded.webSocket, headers: selected });
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return refuse(error, selected);
  }
}

/**
 * Browsers let any page open a WebSocket to any host, with no CORS check. With a token that is
 * harmless (a page cannot get one); without AUTH_SECRET, on loopback, it would let any web page the
 * developer visits drive their local agent, another local server's included: then only pages served
 * from a loopback host on this server's own port may connect, or origins listed in CORS_ORIGINS.
 */
async function checkOrigin(request: Request, env: Env): Promise<void> {
  const origin = request.headers.get('origin');
  if (env.AUTH_SECRET || origin === null) return;
  const listed = (await loadConfig(env)).corsOrigins;
  if (listed !== '*' && listed.includes(origin)) return;
  let page: URL | undefined;
  try {
    page = new URL(origin);
  } catch {
    page = undefined;
  }
  if (page === undefined || !isLoopback(page.hostname) || page.port !== new URL(request.url).port) {
    throw new ApiError(
      403,
      'origin_not_allowed',
      'Without AUTH_SECRET this deployment only takes sockets from pages it serves itself (a loopback host on its own port), or from origins in CORS_ORIGINS.',
    );
  }
}

function refuse(error: ApiError, headers: HeadersInit): Response {
  const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
  server.accept();
  server.send(JSON.stringify(errorFrame(error.code, error.message, null)));
  server.close(4000 + error.status, closeReason(`${error.code}: ${error.message}`));
  return new Response(null, { status: 101, webSocket: client, headers });
}

/** A close reason is at most 123 bytes of UTF-8. */
function closeReason(text: string): string {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= 123) return text;
  let cut = text.slice(0, 120);
  while (new TextEncoder().encode(`${cut}…`).length > 123) cut = cut.slice(0, -1);
  return `${cut}…`;
}
