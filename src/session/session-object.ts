/**
 * One session's Durable Object: it owns the history (SQLite), the pending tool calls and the one
 * running turn. Thin on purpose: it checks a request against its state, starts the platform-free loop
 * with persistence and the chosen wire encoder listening, and hands back the stream. Expected
 * failures return as values (`{ ok: false }`), since errors thrown across RPC lose their fields.
 */
import { DurableObject } from 'cloudflare:workers';
import type { AgentEvent } from '../agent/events';
import { runTurn } from '../agent/run-turn';
import { INTERRUPTED_TEXT } from '../agent/tool-phase';
import type { MessagesQuery } from '../api/messages-query';
import type { TurnRequest } from '../api/turn-request';
import { readConfig } from '../config';
import type { Env } from '../env';
import { createSseStream } from '../http/sse-stream';
import { ApiError, type ApiErrorBody } from '../lib/errors';
import { newId } from '../lib/ids';
import { createTurnsJsonEncoder, type TurnJsonBody } from '../protocol/turns-json-encoder';
import { createTurnsSseEncoder } from '../protocol/turns-sse-encoder';
import { resolveModel } from '../providers/registry';
import { defaultTools } from '../tools/default-tools';
import { SessionStore, type SessionSummary } from './store';
import { createTurnRecorder } from './turn-recorder';
import { validateTurn } from './validate-turn';

/** While a turn runs, an alarm this often keeps the object awake and finds turns cut by eviction. */
const KEEPALIVE_MS = 30_000;

export type Failure = { ok: false; status: number; body: ApiErrorBody };
export type Result<T> = ({ ok: true } & T) | Failure;

export type StartTurnArgs = { sessionId: string; request: TurnRequest; model: string };
export type StartedTurn = { kind: 'sse'; body: ReadableStream<Uint8Array> } | { kind: 'json'; body: TurnJsonBody };
export type SessionView = SessionSummary & { sessionId: string; running: boolean; runningTurnId?: string };

type RunningTurn = { turnId: string; controller: AbortController; done: Promise<void> };

export class SessionObject extends DurableObject<Env> {
  private readonly store: SessionStore;
  private running: RunningTurn | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.store = new SessionStore(ctx.storage);
    // A fresh instance has no turn in memory: any turn storage calls running was cut short.
    void ctx.blockConcurrencyWhile(async () => this.closeInterruptedTurns());
  }

  async startTurn(args: StartTurnArgs): Promise<Result<StartedTurn>> {
    return guard(async () => {
      const config = readConfig(this.env);
      const pending = this.store.exists() ? this.store.pendingCalls() : [];
      const { answers, newMessages } = validateTurn(args.request, pending, this.running !== undefined);
      const model = resolveModel(args.model, config);

      // From the checks to the lock, nothing awaits: no other request can slip in between.
      this.store.ensureCreated(args.sessionId);
      const turnId = newId('turn');
      this.store.beginTurn(turnId, model.id);
      const recorder = createTurnRecorder(this.store, turnId);
      const controller = new AbortController();
      const wire = this.openWire(args.request.stream);
      const emit = (event: AgentEvent) => {
        recorder(event); // stored before any client sees it
        wire.send(event);
      };

      const done = runTurn(
        { turnId, history: this.store.history(), answers, newMessages, clientTools: args.request.tools ?? [] },
        {
          model,
          tools: defaultTools,
          toolContext: { now: () => new Date(), notes: this.store },
          emit,
          signal: controller.signal,
          systemPrompt: config.systemPrompt,
          maxIterations: config.maxIterations,
          toolTimeoutMs: config.toolTimeoutMs,
          newId,
          now: Date.now,
        },
      )
        .then(
          () => undefined,
          (cause) => console.error('turn crashed', turnId, cause),
        )
        .finally(() => {
          wire.close();
          this.running = undefined;
        });
      this.running = { turnId, controller, done };
      await this.ctx.storage.setAlarm(Date.now() + KEEPALIVE_MS);
      return wire.result();
    });
  }

  async getSession(sessionId: string): Promise<Result<{ session: SessionView }>> {
    return guard(async () => {
      this.requireSession();
      const session: SessionView = { sessionId, ...this.store.summary(), running: this.running !== undefined };
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
    if (this.running) await this.ctx.storage.setAlarm(Date.now() + KEEPALIVE_MS);
    else this.closeInterruptedTurns();
  }

  private requireSession(): void {
    if (!this.store.exists()) throw new ApiError(404, 'session_not_found', 'No session has this id. A session is created by its first turn.');
  }

  /** The response side of a turn: an SSE stream now, or one JSON body when the turn stops. */
  private openWire(mode: TurnRequest['stream']) {
    if (mode === 'none') {
      const encoder = createTurnsJsonEncoder();
      let resolve: (body: TurnJsonBody) => void = () => {};
      const body = new Promise<TurnJsonBody>((r) => (resolve = r));
      return {
        send: (event: AgentEvent) => encoder.encode(event).forEach(resolve),
        close: () => {},
        result: async (): Promise<StartedTurn> => ({ kind: 'json', body: await body }),
      };
    }
    const encoder = createTurnsSseEncoder(mode);
    const sse = createSseStream();
    return {
      send: (event: AgentEvent) => encoder.encode(event).forEach(sse.send),
      close: () => sse.close(),
      result: async (): Promise<StartedTurn> => ({ kind: 'sse', body: sse.readable }),
    };
  }

  /**
   * Turns that storage calls running while no turn runs in memory were cut by an eviction or a
   * crash: their running tool calls get an error result and the turn is closed, so the session
   * never stays locked and the history never holds an unanswered call.
   */
  private closeInterruptedTurns(): void {
    for (const turn of this.store.runningTurns()) {
      for (const call of this.store.runningCalls()) {
        this.store.appendToolResult(turn.turnId, { role: 'tool', toolCallId: call.toolCallId, content: INTERRUPTED_TEXT, isError: true });
      }
      this.store.endTurn(turn.turnId, 'interrupted', 'error', 'interrupted');
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
