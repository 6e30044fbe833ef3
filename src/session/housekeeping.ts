/**
 * The session's alarm and what it keeps tidy. While a turn runs (from 250 ms in), an alarm keeps the
 * object awake and, if it wakes a new instance, finds turns cut by eviction. Once no turn runs, the
 * alarm prunes the event logs and sets itself for the next one to expire. A turn that ends sooner
 * needs no keepalive: it only sets the alarm for its log's expiry, unless one is due before. Setting
 * an alarm is a storage write, and each alarm that fires is a request of its own, so a session of
 * short turns writes one alarm a day, not one per burst of turns (and is not woken 30 s after each
 * burst); an alarm already due within the keepalive serves a long turn's too. The logs a busy
 * session keeps are bounded by a prune every `PRUNE_EVERY_TURNS` turns. The alarm also runs the
 * session's jobs that have a time: the reports to the user's object (`user-link.ts`), the webhooks
 * (`webhooks.ts`) and the schedules (`schedules.ts`), each asking for its next time with `wake`.
 */
import { EVENT_LOG_MAX_TURNS, EVENT_LOG_RETENTION_MS } from './event-log';
import { closeCutTurns } from './recovery';
import type { SessionStores } from './store/stores';

/** While a turn runs, an alarm this often keeps the object awake and finds turns cut by eviction. */
const KEEPALIVE_MS = 30_000;
/** How long a turn runs before its keepalive is set (`turnStarted`). */
const KEEPALIVE_AFTER_MS = 250;
/** Turns between two prunes of the event logs outside the alarm. */
const PRUNE_EVERY_TURNS = 16;

/** Work the alarm runs: what is due now; and whether anything waits for a later time. */
export type AlarmJob = { runDue(): Promise<void> | void; waiting(): boolean };

export class Housekeeping {
  private turnsSincePrune = 0;
  private keepAwakeSoon: ReturnType<typeof setTimeout> | undefined;
  /** When `keepAwakeSoon` fires. */
  private keepAwakeSoonAt = 0;
  /** When the alarm fires: as this instance set it, or as it found it when it woke (`knownAlarm`). */
  private alarmAt: number | undefined;

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly stores: SessionStores,
    private readonly turnRunning: () => boolean,
    /** Once no turn runs: the queue may start its next turn (after an eviction, nothing else wakes it). */
    private readonly idle: () => void,
    private readonly jobs: AlarmJob[],
  ) {}

  /** The alarm a former instance set, read when this one wakes: a later time must never push it back. */
  knownAlarm(at: number | null): void {
    this.alarmAt = at ?? undefined;
  }

  /** Whether the alarm is set to fire by `at`. */
  private alarmBy(at: number): boolean {
    return this.alarmAt !== undefined && this.alarmAt <= at;
  }

  /**
   * Whether the alarm fires by `at`, counting the one a turn's timer (`turnStarted`) is about to
   * set: for the logs' expiry, a day after it fires, or sooner (a keepalive).
   */
  alarmComingBy(at: number): boolean {
    return this.alarmBy(at) || (this.keepAwakeSoon !== undefined && this.keepAwakeSoonAt + EVENT_LOG_RETENTION_MS <= at);
  }

  /** The alarm fires by `at`; an earlier one stays. */
  wake(at: number): void {
    if (this.alarmBy(at)) return;
    // Never rejects: a storage gone with its object (a reset) has no alarm to keep.
    this.setAlarm(at).catch((error: unknown) => console.warn('no alarm set', error));
  }

  /**
   * A turn started: once it has run `KEEPALIVE_AFTER_MS`, the alarm keeps the object awake (and
   * prunes after it, as a keepalive does). Setting an alarm is a write, and an object's output waits
   * for its writes: set as the turn starts, it held the model request, and a new session's first
   * event, about 0.7 ms (bench/PROFILE.md, "A new session made lean"). A turn cut within
   * that time is closed when its object next wakes, as any cut turn is. If no turn runs by then,
   * the alarm is only made sure of for the logs' expiry (bench/PROFILE.md, "An alarm a day").
   * A turn no client follows as it starts (`Prefer: respond-async`) has no first event to hold: its
   * keepalive is set at once, so that a restart in its first moments still wakes the object to close
   * it (and send its webhook). A queued turn has had one since it was queued.
   */
  turnStarted(followed: boolean): void {
    if (!followed) return this.keepAwake();
    if (this.keepAwakeSoon) return;
    this.keepAwakeSoonAt = Date.now() + KEEPALIVE_AFTER_MS;
    this.keepAwakeSoon = setTimeout(() => {
      this.keepAwakeSoon = undefined;
      if (this.turnRunning()) return this.keepAwake();
      // The turns ended sooner: no keepalive, only the alarm that prunes their logs once they expire.
      this.wake(Date.now() + EVENT_LOG_RETENTION_MS);
    }, KEEPALIVE_AFTER_MS);
  }

  /** The alarm keeps the object awake: a turn runs, or one waits in the queue. */
  keepAwake(): void {
    // An alarm due sooner (a retry, a schedule; or one past due, about to fire) serves as the keepalive.
    this.wake(Date.now() + KEEPALIVE_MS);
  }

  /** A turn ended: every `PRUNE_EVERY_TURNS` turns, the expired logs go. */
  turnEnded(): void {
    this.turnsSincePrune = (this.turnsSincePrune + 1) % PRUNE_EVERY_TURNS;
    if (this.turnsSincePrune === 0) this.stores.turns.prune(Date.now() - EVENT_LOG_RETENTION_MS, EVENT_LOG_MAX_TURNS);
  }

  async alarm(): Promise<void> {
    this.alarmAt = undefined; // it fired
    // Each job asks for its next time itself (`wake`): a send that failed, a schedule's next run.
    for (const job of this.jobs) await job.runDue();
    if (this.turnRunning()) return this.wake(Date.now() + KEEPALIVE_MS);
    // An erased session's alarm only had its deletion to report.
    if (!this.stores.meta.exists()) return;
    closeCutTurns(this.stores);
    this.idle();
    if (this.turnRunning()) return;
    const nextEnd = this.stores.turns.prune(Date.now() - EVENT_LOG_RETENTION_MS, EVENT_LOG_MAX_TURNS);
    if (nextEnd !== undefined) return this.wake(nextEnd + EVENT_LOG_RETENTION_MS);
    if (this.alarmAt === undefined && !this.jobs.some((job) => job.waiting())) await this.deleteAlarm();
  }

  /** The session is deleted: its alarm, its storage (the outbox's too), and what the stores keep of it. */
  async erase(forget: () => void): Promise<void> {
    if (this.keepAwakeSoon) clearTimeout(this.keepAwakeSoon);
    this.keepAwakeSoon = undefined;
    await this.deleteAlarm();
    await this.storage.deleteAll();
    this.stores.meta.forget();
    this.stores.history.forget();
    forget();
  }

  private deleteAlarm(): Promise<void> {
    this.alarmAt = undefined;
    return this.storage.deleteAlarm();
  }

  private setAlarm(at: number): Promise<void> {
    this.alarmAt = at;
    return this.storage.setAlarm(at);
  }
}
