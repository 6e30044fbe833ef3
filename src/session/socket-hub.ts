/**
 * The session's chat sockets, held by the runtime with the Hibernation API: the upgrade (which the
 * Worker authenticated: it names the session, the user and the token's expiry in headers), what each
 * socket carries through hibernation, sending, broadcasting, and the count of those still open, so
 * that a session with no socket pays nothing for them.
 */
import { createSocketEncoder } from '../protocol/socket-encoder';
import { errorFrame, type ServerFrame, type ToolVisibility } from '../protocol/socket-frames';
import { socketListener, type Listener } from './followers';
import { socketFrameFor, type SessionEvent } from '../protocol/session-events';
import type { SocketAttachment } from './socket-door';
import { SOCKET_EXPIRES_HEADER, SOCKET_SESSION_HEADER, SOCKET_USER_HEADER } from './socket-upgrade';

/** Sockets one session accepts at once (tabs, devices); more are refused. */
const MAX_SOCKETS = 32;

export class SocketHub {
  /** Whether a socket may be open: known on wake, set by an upgrade, counted again when one closes. */
  private open: boolean;

  constructor(private readonly ctx: DurableObjectState) {
    this.open = ctx.getWebSockets().length > 0;
  }

  get anyOpen(): boolean {
    return this.open;
  }

  upgrade(request: Request): Response {
    const sessionId = request.headers.get(SOCKET_SESSION_HEADER);
    const userId = request.headers.get(SOCKET_USER_HEADER);
    if (request.headers.get('upgrade')?.toLowerCase() !== 'websocket' || !sessionId || !userId) {
      return new Response('The session object only takes WebSocket upgrades from the Worker.', { status: 400 });
    }
    const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    if (this.ctx.getWebSockets().length >= MAX_SOCKETS) {
      server.accept();
      this.send(server, errorFrame('too_many_sockets', `A session takes at most ${MAX_SOCKETS} sockets at once.`, null));
      server.close(1013, 'Too many sockets on this session; close one and try again.');
      return new Response(null, { status: 101, webSocket: client });
    }
    // Hibernation: the runtime holds the socket; this object may leave memory while it is idle.
    this.ctx.acceptWebSocket(server);
    this.open = true;
    const expiresAt = Number(request.headers.get(SOCKET_EXPIRES_HEADER) ?? NaN);
    const attachment: SocketAttachment = { sessionId, userId, ...(Number.isFinite(expiresAt) ? { expiresAt } : {}) };
    server.serializeAttachment(attachment);
    return new Response(null, { status: 101, webSocket: client });
  }

  /** A socket closed (by its client, or failed): the handshake completed, the count taken again. */
  closed(socket: WebSocket, code: number, reason: string): void {
    // Completes the closing handshake the client began.
    closeQuietly(socket, code === 1005 || code === 1006 ? 1000 : code, reason);
    this.open = this.ctx.getWebSockets().some((other) => other !== socket && other.readyState === WebSocket.OPEN);
  }

  send(socket: WebSocket, frame: ServerFrame): void {
    try {
      socket.send(JSON.stringify(frame));
    } catch {
      // The socket is closing; its client reads what it missed from the history.
    }
  }

  /** The frames to every socket of the session, which are looked up once for all of them. */
  broadcast(...frames: ServerFrame[]): void {
    if (frames.length === 0) return;
    const sockets = this.ctx.getWebSockets();
    if (sockets.length === 0) return;
    const texts = frames.map((frame) => JSON.stringify(frame));
    for (const socket of sockets) {
      try {
        for (const text of texts) socket.send(text);
      } catch {
        // As in `send`.
      }
    }
  }

  /** Every socket of the session sees every turn, whichever door started it (a socket's own request id on its own). */
  turnListener(door: { sessionId: string; socket?: { requestId: string | null; reasoning: boolean } }, visibility: (toolName: string) => ToolVisibility): Listener {
    const encoder = () =>
      createSocketEncoder({ conversationId: door.sessionId, requestId: door.socket?.requestId ?? null, reasoning: door.socket?.reasoning ?? false, visibility });
    return socketListener(encoder, () => this.open, (frames) => this.broadcast(...frames));
  }

  /** Something happened to the session: every socket hears it; a deletion closes them all. */
  tell(event: SessionEvent): void {
    const frame = socketFrameFor(event);
    if (event.type !== 'session-deleted') return this.broadcast(frame);
    for (const socket of this.ctx.getWebSockets()) {
      this.send(socket, frame);
      closeQuietly(socket, 1000, 'The session was deleted.');
    }
    this.open = false;
  }
}

export function closeQuietly(socket: WebSocket, code: number, reason: string): void {
  try {
    socket.close(code, reason);
  } catch {
    // Already closed.
  }
}
