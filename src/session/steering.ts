/**
 * The user messages steered into the running turn (ifBusy "steer"), which its loop takes at its
 * next step boundary. Each batch is also stored as a queued turn, so that an eviction loses none: it
 * leaves the queue in the task the loop tells its messages (`told`), their events' writes and its
 * removal one commit; not taken, it runs as a turn of its own. Taken, a batch may go to the model
 * before it is told (docs/decisions.md, 44): from then on it can no longer be withdrawn.
 */
import type { UserMessage } from '../api/content';
import type { SessionStores } from './store/stores';

type Steered = { messages: UserMessage[]; queuedTurnId: string };

export class SteeringInbox {
  private waiting: Steered[] = [];
  /** Taken by the loop, not yet told: still in the queue, no longer the user's to withdraw. */
  private taken: Steered[] = [];

  constructor(private readonly stores: SessionStores) {}

  /** Messages stored as the queued turn `queuedTurnId`, for the loop to take. */
  add(messages: UserMessage[], queuedTurnId: string): void {
    this.waiting.push({ messages, queuedTurnId });
  }

  /** A batch cancelled before the loop took it leaves; false once the loop has taken it. */
  withdraw(queuedTurnId: string): boolean {
    if (this.taken.some((batch) => batch.queuedTurnId === queuedTurnId)) return false;
    this.waiting = this.waiting.filter((batch) => batch.queuedTurnId !== queuedTurnId);
    return true;
  }

  /** What was steered in, for the loop. */
  take(): UserMessage[] {
    const batches = this.waiting;
    this.waiting = [];
    this.taken.push(...batches);
    return batches.flatMap((batch) => batch.messages);
  }

  /** The loop tells what it took: out of the queue, in the same task as its events are stored. */
  told(): void {
    for (const { queuedTurnId } of this.taken) {
      this.stores.queue.remove(queuedTurnId);
      this.stores.turns.forget(queuedTurnId);
    }
    this.taken = [];
  }
}
