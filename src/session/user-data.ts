/**
 * A session's part of its user's export (`GET /users/me/export`, docs/users.md): JSON lines, made
 * as they are read (a page of messages at a time), so that a long history never sits in memory
 * whole. Its entry first, then every message of every branch with its id and parent, its notes, its
 * permission rules and its schedules.
 */
import { messageId } from '../api/message-ids';
import type { ScheduleView } from '../api/schedule-requests';
import type { SessionStores } from './store/stores';
import { entryOf } from './user-link';

/** Messages read per pull of the stream. */
const PAGE = 100;

export function exportSession(stores: SessionStores, sessionId: string, running: boolean, schedules: () => ScheduleView[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const line = (value: unknown) => encoder.encode(`${JSON.stringify(value)}\n`);
  let after: number | undefined;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (!stores.meta.exists()) return controller.close(); // erased meanwhile
      if (after === undefined) {
        controller.enqueue(line({ type: 'session', ...entryOf(stores, sessionId, running) }));
        after = 0;
        return;
      }
      const rows = stores.history.allRows(after, PAGE);
      for (const row of rows) {
        const place = { id: messageId(row.seq), ...(row.parentSeq !== null ? { parentId: messageId(row.parentSeq) } : {}) };
        controller.enqueue(line({ type: 'message', sessionId, ...place, createdAt: new Date(row.createdAt).toISOString(), ...row.message }));
      }
      const last = rows.at(-1);
      if (rows.length === PAGE && last) {
        after = last.seq;
        return;
      }
      for (const note of stores.side.list()) controller.enqueue(line({ type: 'note', sessionId, ...note }));
      for (const rule of stores.side.rules()) controller.enqueue(line({ type: 'rule', sessionId, ...rule }));
      for (const schedule of schedules()) controller.enqueue(line({ type: 'schedule', sessionId, ...schedule }));
      controller.close();
    },
  });
}
