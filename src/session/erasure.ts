/**
 * Erasing a session (docs/users.md): its storage, what its parts keep in memory, its sockets told;
 * its user's list learns it from the outbox, which outlives the erasure. For its user's erasure, a
 * running turn is stopped first.
 */
import type { Housekeeping } from './housekeeping';
import type { SocketHub } from './socket-hub';
import type { Outbox } from './store/outbox';
import type { SessionStores } from './store/stores';
import type { Titles } from './titles';
import type { TurnQueue } from './turn-queue';
import type { TurnRunner } from './turn-runner';
import type { UserLink } from './user-link';

/** The parts of a session object an erasure touches (`assembly.ts` has them all). */
type SessionParts = {
  stores: SessionStores;
  users: Pick<UserLink, 'deleted'>;
  outbox: Outbox;
  titles: Titles;
  housekeeping: Housekeeping;
  queue: TurnQueue;
  hub: SocketHub;
  runner: TurnRunner;
};

export async function eraseSession(parts: SessionParts): Promise<void> {
  const { stores, users, outbox, titles, housekeeping, queue, hub } = parts;
  const sessionId = stores.meta.sessionId();
  const generation = stores.meta.generation();
  titles.abandon();
  // The usage not yet reported outlives the session (under the same ids, so it counts once).
  const usage = outbox.usageWaiting();
  await housekeeping.erase(() => outbox.forget());
  for (const report of usage) outbox.add(report);
  if (sessionId !== undefined) users.deleted(sessionId, generation);
  queue.forget();
  // The session is gone: its sockets are told so and closed.
  hub.tell({ type: 'session-deleted' });
}

/** Erases the session for its user's erasure; false when there was none. */
export async function eraseForUser(parts: SessionParts): Promise<boolean> {
  // A new session's first turn is stored a task after it starts (docs/decisions.md, 43): without
  // this wait, a session in that task would seem not to exist, and outlive its user's erasure.
  await parts.runner.settled();
  if (!parts.stores.meta.exists()) return false;
  while (parts.runner.runningTurnId) await parts.runner.stop();
  await eraseSession(parts);
  return true;
}
