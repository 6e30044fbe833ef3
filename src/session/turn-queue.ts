/**
 * The turns that wait for the session (ifBusy "enqueue", and steered messages the running turn could
 * not take): stored in order (`store/queue.ts`) with a turn row that says `queued`, followed while
 * they wait (`: queued` comments, then their events), started one at a time once no turn runs and no
 * tool call is owed, and cancellable while they wait. A queued turn is checked against the session
 * as it starts: one that is invalid by then ends at once with `turn_stop` `error` (the code its
 * 4xx would have had) and stores nothing.
 */
import type { TurnError } from '../agent/events';
import type { AcceptedTurn } from '../api/responses';
import type { TurnRequest } from '../api/turn-request';
import { ApiError } from '../lib/errors';
import { newId } from '../lib/ids';
import { errorStop, logStop } from './event-log';
import type { Follower, Listener } from './followers';
import type { SessionStores } from './store/stores';
import type { TurnRunner } from './turn-runner';

export interface QueueHost {
  readonly stores: SessionStores;
  readonly runner: TurnRunner;
  /** How many turns may wait (`MAX_QUEUED_TURNS`). */
  maxQueued(): number;
  /** Keeps an alarm set, by which a queue that outlived its object still drains. */
  keepAwake(): void;
  /** A waiting turn ended without running (cancelled, or refused when its time came). */
  endedUnrun(turnId: string, error: TurnError): void;
}

export type Queued = Extract<AcceptedTurn, { status: 'queued' }>;

export class TurnQueue {
  /** Followers of waiting turns, by turn: they join the turn's output when it starts. */
  private readonly waiting = new Map<string, Follower[]>();
  /** While an interrupt takes the session, nothing in the queue may start ahead of it. */
  private holds = 0;

  constructor(private readonly host: QueueHost) {}

  /**
   * Puts a turn in the queue. `bounded`: a request is refused past `MAX_QUEUED_TURNS`; steered
   * messages a turn could not take are never lost to the bound.
   */
  enqueue(request: TurnRequest, door: { sessionId: string; model: string; idempotency?: { key: string; hash: string }; scheduleId?: string }, bounded = true): Queued {
    const { stores } = this.host;
    const max = this.host.maxQueued();
    if (bounded && stores.queue.size() >= max) {
      throw new ApiError(409, 'queue_full', `${max} turns already wait in this session's queue; wait for one to run, or cancel one.`, { details: { maxQueuedTurns: max } });
    }
    stores.meta.ensureCreated(door.sessionId);
    const turnId = newId('turn');
    stores.turns.queueTurn(turnId, door.model, request.stream, door.idempotency, door.scheduleId);
    stores.queue.add(turnId, request, door.model);
    this.host.keepAwake();
    return { turnId, status: 'queued', position: this.position(turnId) };
  }

  /** The turn's place in the queue from 1; 0 once it no longer waits. */
  position(turnId: string): number {
    return this.host.stores.queue.positions().find((entry) => entry.turnId === turnId)?.position ?? 0;
  }

  /** Attaches a follower to a waiting turn (one made `queued`: it says so until the turn starts). */
  follow(turnId: string, follower: Follower): Follower {
    this.waiting.set(turnId, [...(this.waiting.get(turnId) ?? []), follower]);
    return follower;
  }

  /**
   * Takes a waiting turn out of the queue; its events end with `turn_stop` `error`, code `cancelled`.
   * Not steered messages the running turn has taken: they may be on their way to the model.
   */
  cancel(turnId: string): boolean {
    if (!this.host.runner.unsteer(turnId) || !this.host.stores.queue.remove(turnId)) return false;
    this.end(turnId, 'cancelled', { code: 'cancelled', message: 'The turn was cancelled while it waited in the queue.' }, this.take(turnId));
    return true;
  }

  /**
   * Runs `work` (an interrupt) with the queue held: nothing waiting starts ahead of it. If `work`
   * started no turn (it was refused), what waits goes on at once.
   */
  async hold<T>(work: () => Promise<T>): Promise<T> {
    this.holds++;
    try {
      return await work();
    } finally {
      this.holds--;
      void this.drain();
    }
  }

  /** The session was deleted: the streams of turns that waited end (their turns are gone with it). */
  forget(): void {
    for (const followers of this.waiting.values()) for (const follower of followers) follower.close();
    this.waiting.clear();
  }

  /**
   * Starts the next waiting turn if the session is free: no turn runs, no call is owed, no interrupt
   * holds it. Never rejects (it runs after a turn, and from the alarm, with nobody to tell).
   */
  async drain(): Promise<void> {
    try {
      await this.startNext();
    } catch (error) {
      console.error('the queue could not go on', error);
    }
  }

  private async startNext(): Promise<void> {
    const { stores, runner } = this.host;
    for (;;) {
      // The queue first: a session with nothing waiting (most) reads one row, not its pending calls.
      const next = stores.queue.first();
      if (!next || !this.free()) return;
      let followers: Listener[] = [];
      if (!next.request) {
        stores.queue.remove(next.turnId);
        this.end(next.turnId, 'finished', { code: 'invalid_request', message: 'The queued request no longer reads as a turn request.' }, this.take(next.turnId));
        continue;
      }
      const queuedRequest = next.request;
      // Checked again once the tools are known: another request may have taken the session, or a
      // cancel this turn, meanwhile. Taking it out of the queue is the check that it still waits.
      const request = (): TurnRequest | undefined => {
        if (!this.free() || !stores.queue.remove(next.turnId)) return undefined;
        followers = this.take(next.turnId);
        return queuedRequest;
      };
      try {
        const launched = await runner.launch(request, { sessionId: stores.meta.sessionId() ?? '', model: next.model, queued: { turnId: next.turnId, followers: () => followers } });
        // Started; or not, because the session was taken (the next check returns) or this turn was
        // cancelled meanwhile (the next one in line is tried).
        if ('turnId' in launched) return;
      } catch (error) {
        const turnError: TurnError = error instanceof ApiError ? { code: error.code, message: error.message } : { code: 'internal_error', message: 'The queued turn could not start.' };
        if (!(error instanceof ApiError)) console.error('a queued turn failed to start', next.turnId, error);
        if (stores.queue.remove(next.turnId)) followers = this.take(next.turnId);
        this.end(next.turnId, 'finished', turnError, followers);
      }
    }
  }

  private free(): boolean {
    const { stores, runner } = this.host;
    if (this.holds > 0 || runner.runningTurnId !== undefined) return false;
    return !(stores.meta.exists() && stores.history.pendingCalls().length > 0);
  }

  private take(turnId: string): Follower[] {
    const followers = this.waiting.get(turnId) ?? [];
    this.waiting.delete(turnId);
    return followers;
  }

  /** A waiting turn that never ran: its one event, stored and told, and its end. */
  private end(turnId: string, status: string, error: TurnError, followers: Listener[]): void {
    const { stores } = this.host;
    const stop = errorStop(turnId, error, stores.meta.calibration());
    logStop(stores.turns, stop, 1);
    stores.turns.endTurn(turnId, status, 'error', error.code, stop.at);
    this.host.endedUnrun(turnId, error);
    for (const follower of followers) {
      follower.deliver({ seq: 1, event: stop });
      follower.close();
    }
  }
}
