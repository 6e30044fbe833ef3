/**
 * The session's link to its user's object (docs/users.md). Each model call's usage and the session's
 * entry in the user's list go into the outbox (`store/outbox.ts`) in the same storage as the turn, and
 * are sent at once (a call's usage at the end of its task, with whatever else the task reports); a
 * send that fails is retried by the alarm with a backoff, so the list and the counters are late at
 * worst, never wrong. The user's totals come back with every send, so that the daily quotas are
 * checked here, before each model call, without a round trip.
 */
import type { ModelCallUsage, TurnError } from '../agent/events';
import type { SessionEntry } from '../api/session-entry';
import { costOf, type UserSettings } from '../users/prices';
import { hasQuota, overQuota, quotaMessage, utcDay, type DayTotals, type QuotaRefusal } from '../users/quota';
import type { Report } from '../users/reports';
import type { ReportAnswer } from '../users/user';
import { newId } from '../lib/ids';
import { SingleFlight } from '../lib/single-flight';
import { EVENT_LOG_RETENTION_MS } from './event-log';
import type { Outbox } from './store/outbox';
import type { SessionMeta } from './store/meta';
import type { SessionStores } from './store/stores';

/** What the session needs of its user's object. */
export type UserReports = { report(reports: Report[]): Promise<ReportAnswer>; today(): Promise<DayTotals> };

export type UserLinkHost = {
  stores: SessionStores;
  outbox: Outbox;
  user(): UserReports;
  settings(): UserSettings;
  /** Runs `run` in the object's next task, with all who wait for it (`task-end.ts`); returns how to withdraw it. */
  afterThisTask(run: () => void): () => void;
  /** Asks the alarm to fire by `at`, to send again. */
  wake(at: number): void;
  /** Whether the alarm fires by `at`, or is about to be set to (it sends, and deletes what was sent). */
  alarmComingBy(at: number): boolean;
  running(): boolean;
  /** The user was erased while this session was not yet on their list: it erases itself. */
  erase(): Promise<void>;
};

/** A send that fails waits 1 s, then twice as long each time, at most this long. */
const MAX_BACKOFF_MS = 10 * 60_000;
/** How long the end of a turn waits for its entry to reach the list (read your writes). */
const DELIVERY_WAIT_MS = 2_000;
/**
 * How long a turn runs before the list is told it runs: a turn that ends sooner tells only its end,
 * and one that runs longer pays for the report after its first event, not before.
 */
const STARTED_AFTER_MS = 250;
/**
 * How soon an alarm must be due for a turn's end to leave what it sent to it (or to the outbox's
 * next write) to delete: within two days. The alarm for the turn's log is set anyway, for a day
 * after the turn (its timer sets it a day after it fires, `housekeeping.ts`), and two days are well
 * within the 30 the user's object remembers a usage report it took, so that one sent again by a
 * later instance is not counted twice.
 */
const SWEEP_WITHIN_MS = 2 * EVENT_LOG_RETENTION_MS;

type Spent = { date: string; tokens: number; costUsd: number };

export class UserLink {
  /** Today's totals as the user's object last told them. */
  private known: DayTotals | undefined;
  /** Usage written to the outbox and not yet taken, by row id: the quota counts it already. */
  private readonly unsent = new Map<number, Spent>();
  /** Usage counted and not yet written to the outbox: written at the end of its task, or before a send. */
  private unstored: { report: Extract<Report, { kind: 'usage' }>; spent: Spent }[] = [];
  /** One send at a time; what is added meanwhile goes in the next. A storage gone with its object (a reset) fails it too: the next instance sends. */
  private readonly sending = new SingleFlight(() => this.sendBatch(), 'user reports not sent');
  private startTimer: ReturnType<typeof setTimeout> | null = null;
  /** Withdraws the send that waits for the end of this task (`sendSoon`). */
  private soon: (() => void) | undefined;
  /** The next send serves a turn's end: what it sends is deleted later, not in a commit of its own. */
  private sweepLater = false;

  constructor(private readonly host: UserLinkHost) {}

  /**
   * A model call's usage: counted at once, and written to the outbox and reported once the task that
   * made the call has run out. Written in that task, it held a next model request the loop sends in
   * it (`TurnDeps.requestSent`) for its commit. A turn whose last call ends it tells its end in that
   * same task, so the usage is written with the turn's entry and goes in one report with it; a turn
   * that goes on (a tool, a permission) sends it meanwhile.
   */
  spent(call: ModelCallUsage, at = Date.now()): void {
    const costUsd = costOf(this.host.settings().prices, call.model, call.usage);
    const report = { kind: 'usage' as const, id: newId('use'), at, model: call.model, usage: call.usage, costUsd };
    this.unstored.push({ report, spent: { date: utcDay(at), tokens: call.usage.inputTokens + call.usage.outputTokens, costUsd: costUsd ?? 0 } });
    this.sendSoon();
  }

  /**
   * A turn started: the list shows the session running once it has run `STARTED_AFTER_MS`. Told
   * without the counts (a read of the branch) and without a write (which would hold the turn's next
   * event until stored): best effort, since the turn's end tells it all again, from the outbox.
   */
  started(sessionId: string): void {
    clearTimeout(this.startTimer);
    this.startTimer = setTimeout(() => void this.tellStarted(sessionId), STARTED_AFTER_MS);
  }

  private async tellStarted(sessionId: string): Promise<void> {
    const { meta } = this.host.stores;
    if (!meta.exists()) return;
    try {
      this.answered(await this.host.user().report([{ kind: 'started', generation: meta.generation(), version: this.host.outbox.nextId(), entry: namesOf(meta, sessionId) }]));
    } catch (error) {
      console.warn('user report of a start failed; its end will tell', error);
    }
  }

  /** The turn's end: its entry, with the counts, not running. */
  ended(sessionId: string): void {
    clearTimeout(this.startTimer);
    // The turn's last event waits for this send, and an object's output for its writes: deleting what
    // it sent at once held that event for a commit of its own (bench/PROFILE.md, "The outbox's third commit").
    this.sweepLater = true;
    this.changed(sessionId, false);
  }

  /** The session's entry changed (a turn ended, a title came): reported. */
  changed(sessionId: string, running = this.host.running()): void {
    const { meta } = this.host.stores;
    if (!meta.exists()) return;
    this.store();
    this.host.outbox.putEntry((version) => ({ kind: 'session', generation: meta.generation(), version, entry: entryOf(this.host.stores, sessionId, running) }));
    this.send();
  }

  /**
   * The session was erased (its storage too, but for this report): its entry leaves the list. The
   * usage not yet reported outlives it, as `erasure.ts` keeps the outbox's: what was counted and not
   * yet written goes in the outbox now.
   */
  deleted(sessionId: string, generation: number): void {
    this.unsent.clear();
    this.store();
    this.host.outbox.add({ kind: 'deleted', sessionId, generation });
    this.send();
  }

  /** Waits until what is in the outbox now has been taken, or a short while: the end of a turn. */
  async delivered(): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | null = null;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, DELIVERY_WAIT_MS)));
    await Promise.race([this.sending.current ?? Promise.resolve(), late]);
    clearTimeout(timer);
  }

  /** Why no model may be called now (a daily quota), as the loop's error; undefined when one may. */
  quotaError(now = Date.now()): TurnError | undefined {
    const refusal = this.refusal(now);
    return refusal && { code: 'quota_exceeded', message: quotaMessage(refusal) };
  }

  refusal(now = Date.now()): QuotaRefusal | undefined {
    const settings = this.host.settings();
    return hasQuota(settings) ? overQuota(settings, this.totals(now), now) : undefined;
  }

  /** Today's totals as far as this session knows: the user's object's last word, and what it has not taken yet. */
  totals(now = Date.now()): DayTotals {
    const today = utcDay(now);
    const totals = this.known?.date === today ? { ...this.known } : { date: today, tokens: 0, costUsd: 0 };
    const count = (spent: Spent) => {
      if (spent.date !== today) return;
      totals.tokens += spent.tokens;
      totals.costUsd += spent.costUsd;
    };
    this.unsent.forEach(count);
    for (const { spent } of this.unstored) count(spent);
    return totals;
  }

  /**
   * Before a turn, when a quota applies and this session knows nothing of today yet (the Worker told
   * it nothing: a socket's frame, a queued turn, a sub-agent's first turn): today's totals.
   */
  async prepare(): Promise<void> {
    if (!hasQuota(this.host.settings()) || this.known?.date === utcDay(Date.now())) return;
    if (this.host.outbox.size() > 0 || this.unstored.length > 0) return void (await this.sendNow());
    try {
      this.learn(await this.host.user().today());
    } catch (error) {
      // The user's object is unreachable: the quota is checked with what this session knows.
      console.warn('user totals unavailable', error);
    }
  }

  /** What the user's object answered a report: its totals, and whether this session must go. */
  private answered(answer: ReportAnswer): void {
    this.learn(answer.today);
    // Not awaited: the erasure stops a turn that may be waiting for this very send.
    if (answer.erase) void this.host.erase().catch((error: unknown) => console.error('erasing an erased user’s session failed', error));
  }

  learn(totals: DayTotals): void {
    if (!this.known || totals.date > this.known.date || (totals.date === this.known.date && totals.tokens >= this.known.tokens)) this.known = totals;
  }

  /** Sends what waits now and deletes what was sent (the alarm's part); resolves once the send ended, well or not. */
  sendNow(): Promise<void> {
    this.store();
    return this.sending.now();
  }

  private send(): void {
    this.store();
    this.sending.kick();
  }

  /**
   * The usage counted and not yet written, written to the outbox (before what the same task puts
   * there after). What waited for the task's end to send it (`sendSoon`) no longer needs to.
   */
  private store(): void {
    this.soon?.();
    this.soon = undefined;
    for (const { report, spent } of this.unstored.splice(0)) this.unsent.set(this.host.outbox.add(report), spent);
  }

  /**
   * A send after the current task: whatever else the task adds goes in the same report, and the
   * usage is written in the task a turn's held events are written in (one commit, `task-end.ts`).
   */
  private sendSoon(): void {
    this.soon ??= this.host.afterThisTask(() => {
      this.soon = undefined; // fired: nothing left to withdraw
      this.send();
    });
  }

  /** One batch of the outbox; a failure waits for the alarm, with a backoff. */
  private async sendBatch(): Promise<void> {
    const later = this.sweepLater;
    this.sweepLater = false;
    const { outbox } = this.host;
    const rows = outbox.waiting();
    const last = rows.at(-1);
    if (!last) return outbox.sweep();
    try {
      const answer = await this.host.user().report(rows.map((row) => row.report));
      outbox.taken(last.id);
      // With no alarm due or about to be set, deleted at once: setting one would be a write too.
      if (!later || !this.host.alarmComingBy(Date.now() + SWEEP_WITHIN_MS)) outbox.sweep();
      for (const row of rows) this.unsent.delete(row.id);
      this.answered(answer);
      if (outbox.size() > 0) this.send();
    } catch (error) {
      const attempts = outbox.failed(last.id);
      console.warn('user report failed; retried by the alarm', attempts, error);
      this.host.wake(Date.now() + Math.min(MAX_BACKOFF_MS, 1000 * 2 ** Math.max(0, attempts - 1)));
    }
  }
}

/** The session as its user's list shows it. */
export function entryOf({ meta, history }: SessionStores, sessionId: string, running: boolean): SessionEntry {
  return { ...namesOf(meta, sessionId), messageCount: history.messageCount(), running, pendingToolCalls: history.pendingCalls().length };
}

/** What an entry says without reading the history: the session's names, times and origin. */
function namesOf(meta: SessionMeta, sessionId: string): Pick<SessionEntry, 'sessionId' | 'title' | 'createdAt' | 'updatedAt' | 'parentSessionId'> {
  const title = meta.title();
  const parent = meta.parentSession() ?? meta.forkedFrom()?.sessionId;
  return { sessionId, ...(title !== undefined ? { title } : {}), ...meta.times(), ...(parent !== undefined ? { parentSessionId: parent } : {}) };
}
