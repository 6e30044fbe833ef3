/**
 * The session's alarm and what it keeps tidy. While a turn runs, an alarm keeps the object awake and,
 * if it wakes a new instance, finds turns cut by eviction. Once no turn runs, the alarm prunes the
 * event logs and sets itself for the next one to expire. An alarm already due within the keepalive
 * serves the next turn too: setting one is a storage write, and it cost every turn more than the rest
 * of its bookkeeping together. So a session pays for one alarm per burst of turns, not two per turn,
 * and the logs a busy session keeps are bounded by a prune every `PRUNE_EVERY_TURNS` turns. The
 * alarm also sends again what the outbox to the user's object holds (`user-link.ts`).
 */
import { EVENT_LOG_MAX_TURNS, EVENT_LOG_RETENTION_MS } from './event-log';
import { closeCutTurns } from './recovery';
import type { SessionStores } from './store/stores';

/** While a turn runs, an alarm this often keeps the object awake and finds turns cut by eviction. */
const KEEPALIVE_MS = 30_000;
/** Turns between two prunes of the event logs outside the alarm. */
const PRUNE_EVERY_TURNS = 16;

export class Housekeeping {
  private turnsSincePrune = 0;
  /** When the alarm fires, as far as this instance set it (unknown after a wake: the first turn sets it). */
  private alarmAt: number | undefined;

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly stores: SessionStores,
    private readonly turnRunning: () => boolean,
    /** Once no turn runs: the queue may start its next turn (after an eviction, nothing else wakes it). */
    private readonly idle: () => void,
    private readonly reports: { sendNow(): Promise<void> },
    private readonly outbox: { size(): number },
  ) {}

  /** The alarm fires by `at` (an earlier one stays). */
  wake(at: number): void {
    if (this.alarmAt !== undefined && this.alarmAt <= at) return;
    // Never rejects: a storage gone with its object (a reset) has no alarm to keep.
    this.setAlarm(at).catch((error: unknown) => console.warn('no alarm set', error));
  }

  /** A turn started: the alarm keeps the object awake while it runs. */
  keepAwake(): void {
    const now = Date.now();
    if (this.alarmAt !== undefined && this.alarmAt > now && this.alarmAt <= now + KEEPALIVE_MS) return;
    void this.setAlarm(now + KEEPALIVE_MS);
  }

  /** A turn ended: every `PRUNE_EVERY_TURNS` turns, the expired logs go. */
  turnEnded(): void {
    this.turnsSincePrune = (this.turnsSincePrune + 1) % PRUNE_EVERY_TURNS;
    if (this.turnsSincePrune === 0) this.stores.turns.prune(Date.now() - EVENT_LOG_RETENTION_MS, EVENT_LOG_MAX_TURNS);
  }

  async alarm(): Promise<void> {
    this.alarmAt = undefined; // it fired
    // A send that fails again sets the alarm for its next try (`wake`).
    await this.reports.sendNow();
    if (this.turnRunning()) return this.wake(Date.now() + KEEPALIVE_MS);
    // An erased session's alarm only had its deletion to report.
    if (!this.stores.meta.exists()) return;
    closeCutTurns(this.stores);
    this.idle();
    if (this.turnRunning()) return;
    const nextEnd = this.stores.turns.prune(Date.now() - EVENT_LOG_RETENTION_MS, EVENT_LOG_MAX_TURNS);
    if (nextEnd === undefined) return this.alarmAt === undefined && this.outbox.size() === 0 ? this.deleteAlarm() : undefined;
    this.wake(nextEnd + EVENT_LOG_RETENTION_MS);
  }

  /** The session is deleted: its alarm, its storage (the outbox's too), and what the stores keep of it. */
  async erase(forget: () => void): Promise<void> {
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
