/**
 * What happens to a session outside its turns, as the session tells it (`SessionEvent`), and the
 * chat socket's frames for it (docs/chat-socket.md): a wire format, so made here from the event, not built
 * inside the session object.
 */
import type { ServerFrame } from './socket-frames';

export type SessionEvent =
  /** The model named the conversation after its first exchange. */
  | { type: 'session-titled'; sessionId: string; title: string }
  /** The session was deleted: its sockets are told, then closed. */
  | { type: 'session-deleted' };

export function socketFrameFor(event: SessionEvent): ServerFrame {
  switch (event.type) {
    case 'session-titled':
      return { type: 'conversation_title_update', conversation_id: event.sessionId, title: event.title };
    case 'session-deleted':
      return { type: 'user_disconnect' };
  }
}
