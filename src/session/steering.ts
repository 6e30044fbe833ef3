/**
 * The user messages steered into the running turn (ifBusy "steer"), which its loop takes at its
 * next step boundary. Each batch is also stored as a queued turn, so that an eviction loses none:
 * taken, it leaves the queue; not taken, it runs as a turn of its own (docs/decisions.md, 44, on why
 * a step that takes some stores before its next request).
 */
import type { UserMessage } from '../api/content';
import type { SessionStores } from './store/stores';

type Steered = { messages: UserMessage[]; queuedTurnId: string };

export class SteeringInbox {
  private batches: Steered[] = [];

  constructor(private readonly stores: SessionStores) {}

  /** Messages stored as the queued turn `queuedTurnId`, for the loop to take. */
  add(messages: UserMessage[], queuedTurnId: string): void {
    this.batches.push({ messages, queuedTurnId });
  }

  /** A batch cancelled before the loop took it (its queued turn was cancelled): the turn never sees it. */
  withdraw(queuedTurnId: string): void {
    this.batches = this.batches.filter((batch) => batch.queuedTurnId !== queuedTurnId);
  }

  /** What was steered in, out of the queue and into the turn. */
  take(): UserMessage[] {
    const taken = this.batches;
    this.batches = [];
    for (const { queuedTurnId } of taken) {
      this.stores.queue.remove(queuedTurnId);
      this.stores.turns.forget(queuedTurnId);
    }
    return taken.flatMap((batch) => batch.messages);
  }
}
