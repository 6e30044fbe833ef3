/**
 * One session's Durable Object: it owns the history (SQLite), the pending tool calls, the one
 * running turn and the logs of recent turns' events. Thin on purpose: it checks a request against its
 * state, starts the platform-free loop with persistence, the event log and the turn's followers
 * listening, and hands back a stream or a body. Expected failures return as values
 * (`{ ok: false }`), since errors thrown across RPC lose their fields.
 */
import { DurableObject } from 'cloudflare:workers';
import type { AgentEvent } from '../agent/events';
import { DEFAULT_RETRY_POLICY } from '../agent/retry-policy';
import { runTurn, type ResolvedAnswer, type TurnInput } from '../agent/run-turn';
import { INTERRUPTED_TEXT } from '../agent/tool-phase';
import { emptyUsage } from '../agent/usage';
import type { MessagesQuery } from '../api/messages-query';
import type { StreamMode, TurnRequest } from '../api/turn-request';
import { readConfig } from '../config';
import type { Env } from '../env';
import { ApiError, type ApiErrorBody } from '../lib/errors';
import { newId } from '../lib/ids';
import { resolveModel } from '../providers/registry';
import { defaultTools } from '../tools/default-tools';
import { EVENT_LOG_MAX_TURNS, EVENT_LOG_RETENTION_MS, FLUSH_EVENTS, readStoredEvents, TurnEventLog, type LoggedEvent } from './event-log';
import { createFollower, type Follower, type StartedTurn } from './followers';
import { SessionStore, type SessionSummary } from './store';
import { TurnStore, type TurnRow } from './turn-store';
import { createTurnRecorder } from './turn-recorder';
import { validateTurn } from './validate-turn';

/** While a turn runs, an alarm this often keeps the object awake and finds turns cut by eviction. */
const KEEPALIVE_MS = 30_000;
/** How long an Idempotency-Key is remembered. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

export type Failure = { ok: false; status: number; body: ApiErrorBody };
export type Result<T> = ({ ok: true } & T) | Failure;

export type StartTurnArgs = {
  sessionId: string;
  request: TurnRequest;
  model: string;
  idempotency?: { key: string; hash: string };
};
export type TurnStarted = StartedTurn & { replayed: boolean };
export type SessionView = SessionSummary & { sessionId: string; running: boolean; runningTurnId?: string };
export type CancelledTurn = { turnId: string; status: string; stopReason?: string };

type RunningTurn = {
  turnId: string;
  controller: AbortController;
  done: Promise<void>;
  log: TurnEventLog;
  followers: Set<Follower>;
};

export class SessionObject extends DurableObject<Env> {
  private readonly store: SessionStore;
  private readonly turns: TurnStore;
  private running: RunningTurn | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.store = new SessionStore(ctx.storage);
    this.turns = new TurnStore(ctx.storage, this.store);
    void ctx.blockConcurrencyWhile(async () => {
      this.store.migrate();
      // A fresh instance has no turn in memory: any turn storage calls running was cut short.
      this.closeInterruptedTurns();
    });
  }

  async startTurn(args: StartTurnArgs): Promise<Result<TurnStarted>> {
    return guard(async () => {
      // A retry with a known key runs nothing: it follows (or replays) the turn the key started.
      const prior = args.idempotency && this.turns.turnByIdempotencyKey(args.idempotency.key, Date.now() - IDEMPOTENCY_WINDOW_MS);
      if (prior) {
        if (prior.requestHash !== args.idempotency?.hash) {
          throw new ApiError(422, 'idempotency_key_reused', 'This Idempotency-Key was used with a different request body. Use a new key for a new request.');
        }
        return { ...(await this.follow(prior, args.request.stream, 0).result()), replayed: true };
      }

      const config = readConfig(this.env);
      const pending = this.store.exists() ? this.store.pendingCalls() : [];
      const { answers, newMessages } = validateTurn(args.request, pending, this.running !== undefined);
      const model = resolveModel(args.model, config, { ai: this.env.AI });

      // From the checks to the lock, nothing awaits: no other request can slip in between.
      this.store.ensureCreated(args.sessionId);
      const turnId = newId('turn');
      this.turns.beginTurn(turnId, model.id, args.request.stream, args.idempotency);
      const recorder = createTurnRecorder(this.store, this.turns, turnId);
      const log = new TurnEventLog(this.turns, turnId);
      const first = createFollower(args.request.stream);
      const followers = new Set<Follower>([first]);
      const controller = new AbortController();
      const emit = (event: AgentEvent) => {
        recorder(event); // stored before any client sees it
        const seq = log.append(event);
        for (const follower of followers) follower.deliver({ seq, event });
      };

      const done = runTurn(this.turnInput(turnId, answers, newMessages, args.request), {
        model,
        tools: defaultTools,
        toolContext: { now: () => new Date(), notes: this.store },
        emit,
        signal: controller.signal,
        systemPrompt: config.systemPrompt,
        maxIterations: config.maxIterations,
        toolTimeoutMs: config.toolTimeoutMs,
        retry: { ...DEFAULT_RETRY_POLICY, maxRetries: config.upstream.maxRetries },
        context: config.context,
        isToolCallIdUsed: (id) => this.store.hasToolCallId(id),
        newId,
        now: Date.now,
      })
        .then(
          () => undefined,
          (cause) => console.error('turn crashed', turnId, cause),
        )
        .finally(() => {
          log.flush();
          for (const follower of followers) follower.close();
          this.running = undefined;
          return this.scheduleAlarm();
        });
      this.running = { turnId, controller, done, log, followers };
      await this.ctx.storage.setAlarm(Date.now() + KEEPALIVE_MS);
      return { ...(await first.result()), replayed: false };
    });
  }

  /** Bounded hydration: the latest summary and what came after it, never the whole history. */
  private turnInput(turnId: string, answers: ResolvedAnswer[], newMessages: TurnInput['newMessages'], request: TurnRequest): TurnInput {
    const compaction = this.store.latestCompaction();
    return {
      turnId,
      history: this.store.historyAfter(compaction?.upToSeq ?? 0),
      context: {
        calibration: this.store.calibration(),
        ...(compaction ? { summary: { text: compaction.summary, messages: compaction.summarized } } : {}),
      },
      answers,
      newMessages,
      clientTools: request.tools ?? [],
    };
  }

  /** The events of a turn after `after`, then the live turn to its end (resumable streams). */
  async followTurn(turnId: string, after: number, mode: 'delta' | 'message' | undefined): Promise<Result<{ body: ReadableStream<Uint8Array> }>> {
    return guard(async () => {
      const turn = this.requireTurn(turnId);
      const started = await this.follow(turn, mode ?? (turn.mode === 'none' ? 'delta' : (turn.mode as 'delta' | 'message')), after).result();
      if (started.kind !== 'sse') throw new Error('a stream follower gave no stream');
      return { body: started.body };
    });
  }

  /** Stops the running turn: the abort reaches the model call and running tools; answers once it ended. */
  async cancelTurn(turnId: string): Promise<Result<{ turn: CancelledTurn }>> {
    return guard(async () => {
      const turn = this.requireTurn(turnId);
      const running = this.running;
      if (running?.turnId !== turnId) {
        throw new ApiError(409, 'turn_not_running', `The turn ${turnId} is not running (it is ${turn.status}).`, { details: { status: turn.status } });
      }
      running.controller.abort();
      await running.done;
      const ended = this.turns.turn(turnId);
      const result: CancelledTurn = { turnId, status: ended?.status ?? 'cancelled' };
      if (ended?.stopReason) result.stopReason = ended.stopReason;
      return { turn: result };
    });
  }

  async getSession(sessionId: string): Promise<Result<{ session: SessionView }>> {
    return guard(async () => {
      this.requireSession();
      const session: SessionView = { sessionId, ...this.store.summary(), running: this.running !== undefined };
      const lastTurn = this.turns.last();
      if (lastTurn) session.lastTurn = lastTurn;
      if (this.running) session.runningTurnId = this.running.turnId;
      return { session };
    });
  }

  async getMessages(query: MessagesQuery): Promise<Result<ReturnType<SessionStore['page']>>> {
    return guard(async () => {
      this.requireSession();
      return this.store.page(query.limit, query.cursor);
    });
  }

  async deleteSession(): Promise<Result<{ deleted: true }>> {
    return guard(async () => {
      this.requireSession();
      if (this.running) throw new ApiError(409, 'session_busy', 'A turn is running in this session; delete it after the turn stops.');
      await this.ctx.storage.deleteAlarm();
      await this.ctx.storage.deleteAll();
      return { deleted: true as const };
    });
  }

  override async alarm(): Promise<void> {
    if (!this.running) this.closeInterruptedTurns();
    await this.scheduleAlarm();
  }

  /**
   * A follower for a turn: everything logged so far, then the live events if the turn runs. Read
   * and attach happen with no await between them, so nothing is missed or delivered twice.
   */
  private follow(turn: TurnRow, mode: StreamMode, after: number): Follower {
    if (turn.eventsPruned) throw new ApiError(410, 'events_expired', `The events of turn ${turn.turnId} are no longer kept.`);
    const follower = createFollower(mode, after);
    const running = this.running?.turnId === turn.turnId ? this.running : undefined;
    const logged: LoggedEvent[] = running ? running.log.read() : readStoredEvents(this.turns, turn.turnId);
    for (const entry of logged) follower.deliver(entry);
    if (running) running.followers.add(follower);
    else follower.close();
    return follower;
  }

  /** Keeps a running turn awake; otherwise wakes when the next event log expires. */
  private async scheduleAlarm(): Promise<void> {
    if (this.running) return this.ctx.storage.setAlarm(Date.now() + KEEPALIVE_MS);
    const nextEnd = this.turns.prune(Date.now() - EVENT_LOG_RETENTION_MS, EVENT_LOG_MAX_TURNS);
    if (nextEnd === undefined) return this.ctx.storage.deleteAlarm();
    return this.ctx.storage.setAlarm(nextEnd + EVENT_LOG_RETENTION_MS);
  }

  private requireSession(): void {
    if (!this.store.exists()) throw new ApiError(404, 'session_not_found', 'No session has this id. A session is created by its first turn.');
  }

  private requireTurn(turnId: string): TurnRow {
    this.requireSession();
    const turn = this.turns.turn(turnId);
    if (!turn) throw new ApiError(404, 'turn_not_found', `This session has no turn ${turnId}.`);
    return turn;
  }

  /**
   * Turns that storage calls running while no turn runs in memory were cut by an eviction or a
   * crash: their running tool calls get an error result, their event log gets its last event, and
   * the turn is closed, so the session never stays locked and the history never holds an
   * unanswered call.
   */
  private closeInterruptedTurns(): void {
    for (const turn of this.turns.runningTurns()) {
      for (const call of this.store.runningCalls()) {
        this.store.appendToolResult(turn.turnId, { role: 'tool', toolCallId: call.toolCallId, content: INTERRUPTED_TEXT, isError: true });
      }
      // Events still buffered died with the old instance, but clients may have seen their ids: the
      // closing event takes an id above any of them, so that a client resuming still receives it.
      const lastSeq = (readStoredEvents(this.turns, turn.turnId).at(-1)?.seq ?? 0) + FLUSH_EVENTS;
      const stop: AgentEvent = {
        type: 'turn-stop',
        turnId: turn.turnId,
        stopReason: 'error',
        usage: emptyUsage(),
        modelCalls: [],
        calibration: this.store.calibration(),
        error: { code: 'interrupted', message: 'The turn was interrupted by a restart of the server; its running tool calls were closed.' },
      };
      this.turns.appendEvents(turn.turnId, lastSeq + 1, JSON.stringify([{ seq: lastSeq + 1, event: stop }]));
      this.turns.endTurn(turn.turnId, 'interrupted', 'error', 'interrupted');
    }
  }
}

async function guard<T>(work: () => Promise<T>): Promise<Result<T>> {
  try {
    return { ok: true, ...(await work()) };
  } catch (error) {
    if (error instanceof ApiError) return { ok: false, status: error.status, body: error.toBody() };
    console.error('session failed', error);
    return { ok: false, status: 500, body: { error: { code: 'internal_error', message: 'The session failed to answer; try again.' } } };
  }
}
