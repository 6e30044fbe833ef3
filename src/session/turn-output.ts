/**
 * Where a running turn's events go, in order: the recorder (the history, written before any client
 * sees the event), the event log (resume, replay), then every listener (the request's follower, the
 * sockets, resumed followers). Built so that nothing a turn emits can lock its session:
 * - a listener that throws is dropped and closed, and the others go on;
 * - a failure of the recorder or the log fails the turn (the loop catches it and stops with `error`);
 * - when the loop's own `turn-stop` never got out (it crashed, or that stop could not be stored),
 *   `end` tells one, so that every follower, and a JSON request waiting for its body, sees the end;
 * - the stop is stored at once but told only once `beforeStop` (the user's list learning of the
 *   turn's end, docs/users.md) has settled: a client that sees the end can read its writes anywhere.
 */
import type { AgentEvent } from '../agent/events';
import type { TurnEventLog, TurnStop } from './event-log';
import type { Listener } from './followers';

export class TurnOutput {
  private readonly listeners = new Set<Listener>();
  private stopped = false;
  /** Settles once the loop's stop has been told (after `beforeStop`); never rejects. */
  private stopTold: Promise<void> = Promise.resolve();

  constructor(
    private readonly record: (event: AgentEvent) => void,
    readonly log: TurnEventLog,
    private readonly beforeStop: () => Promise<void> = () => Promise.resolve(),
  ) {}

  /** How many listen now. */
  get size(): number {
    return this.listeners.size;
  }

  add(listener: Listener): void {
    this.listeners.add(listener);
  }

  readonly emit = (event: AgentEvent): void => {
    this.record(event);
    const seq = this.log.append(event);
    if (event.type !== 'turn-stop') return this.deliver(seq, event);
    this.stopped = true;
    // Those who listen now get it; one who joins meanwhile reads it from the log (`attach`), once.
    const audience = [...this.listeners];
    this.stopTold = this.beforeStop()
      .catch((error: unknown) => console.error('before the stop', error))
      .then(() => this.deliver(seq, event, audience.filter((listener) => this.listeners.has(listener))));
  };

  /** Whether the loop told its stop; and when that stop has reached the listeners. */
  get stopSeen(): boolean {
    return this.stopped;
  }

  told(): Promise<void> {
    return this.stopTold;
  }

  /**
   * Ends the turn's output: the stop it never told (`stop`, after `markEnded` stored the turn as
   * ended), the log written out, every listener closed. Each step is tried on its own: whatever
   * fails, the rest still runs.
   */
  end(stop: TurnStop, markEnded: (stop: TurnStop) => void): void {
    if (!this.stopped) {
      this.stopped = true;
      attempt('marking the turn ended', () => markEnded(stop));
      attempt('logging the turn stop', () => this.log.append(stop));
      this.deliver(this.log.lastSeq, stop);
    }
    attempt('writing the event log', () => this.log.flush());
    for (const listener of this.listeners) attempt('closing a follower', () => listener.close());
    this.listeners.clear();
  }

  private deliver(seq: number, event: AgentEvent, audience: Iterable<Listener> = this.listeners): void {
    for (const listener of audience) {
      try {
        listener.deliver({ seq, event });
      } catch (error) {
        console.error('a follower failed; it is closed, the turn goes on', error);
        this.listeners.delete(listener);
        attempt('closing a failed follower', () => listener.close());
      }
    }
  }
}

/** Runs one step of the cleanup, logging rather than throwing what fails. */
export function attempt(what: string, step: () => unknown): void {
  try {
    step();
  } catch (error) {
    console.error(`${what} failed`, error);
  }
}
