/**
 * One session's Durable Object: a shell. It keeps the RPC surface, the socket handlers and the
 * alarm, and hands each to the part that owns it: the turn runner (`turn-runner.ts`, the one
 * launcher of every door), the socket hub and door, sub-agents, titles, housekeeping, and the
 * stores, one per table family (`store/`). A door's method here only says how it reads its request
 * and which follower listens. Expected failures return as values (`result.ts`).
 */
import { DurableObject } from 'cloudflare:workers';
import type { TurnOutcome } from '../agent/run-turn';
import type { RunAgentInput } from '../api/agui-request';
import type { MessagesQuery } from '../api/messages-query';
import type { SseMode, TurnRequest } from '../api/turn-request';
import { readConfig, type Config } from '../config';
import type { Env } from '../env';
import { ApiError } from '../lib/errors';
import type { ModelHandle } from '../providers/types';
import type { PermissionRule } from '../tools/permission-rules';
import type { HarnessFormat } from '../transport/harness-framing';
import { aguiRun } from './agui-door';
import { aguiFollower, createFollower, eventsFollower, harnessFollower, storedSseMode, streamOf, type StartedTurn } from './followers';
import { Housekeeping } from './housekeeping';
import { userOfObjectName } from './object-name';
import { closeCutTurns } from './recovery';
import { guard, type Result } from './result';
import { SocketDoor, type SocketAttachment } from './socket-door';
import { closeQuietly, SocketHub } from './socket-hub';
import type { MessagesPage } from './store/history';
import { openStores, summarize, type SessionStores, type SessionSummary } from './store/stores';
import type { TurnRow } from './store/turns';
import { subagentRunner, type ChildSession } from './subagents';
import { Titles } from './titles';
import { Toolsets } from './toolsets';
import { TurnRunner, type Door } from './turn-runner';

export { IDEMPOTENCY_WINDOW_MS } from './turn-runner';
export type { Failure, Result } from './result';

export type StartTurnArgs = { sessionId: string; request: TurnRequest; model: string; idempotency?: { key: string; hash: string } };
export type TurnStarted = StartedTurn & { replayed: boolean };
export type SessionView = SessionSummary & { sessionId: string; running: boolean; runningTurnId?: string };
export type CancelledTurn = { turnId: string; status: string; stopReason?: string };
type Stream = { body: ReadableStream<Uint8Array> };

export class SessionObject extends DurableObject<Env> {
  private readonly stores: SessionStores;
  private readonly hub: SocketHub;
  private readonly door: SocketDoor;
  private readonly runner: TurnRunner;
  private readonly titles: Titles;
  private readonly housekeeping: Housekeeping;
  private readonly toolsets = new Toolsets();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.stores = openStores(ctx.storage);
    this.hub = new SocketHub(ctx);
    this.titles = new Titles(this.stores, (event) => this.hub.tell(event));
    this.housekeeping = new Housekeeping(ctx.storage, this.stores, () => this.runner.runningTurnId !== undefined);
    this.runner = new TurnRunner({
      stores: this.stores,
      bindings: env.AI ? { ai: env.AI } : {},
      config: () => readConfig(env),
      tools: (subagent) => this.toolsets.forTurn(readConfig(env), subagent),
      sessionListener: (door, config) => this.hub.turnListener(door, config.toolVisibility),
      subagents: (sessionId, model, rules, config) =>
        subagentRunner({ sessionId, userId: this.userId(), model, rules, config, child: (name) => env.SESSIONS.getByName(name) as unknown as ChildSession }),
      started: () => this.housekeeping.keepAwake(),
      ended: (door, outcome, model, config) => this.afterTurn(door, outcome, model, config),
      userId: () => this.userId(),
    });
    this.door = new SocketDoor({
      env,
      stores: this.stores,
      isRunning: () => this.runner.runningTurnId !== undefined,
      launch: (request, door) => this.runner.launch(request, door),
      stop: () => this.runner.stop(),
      send: (socket, frame) => this.hub.send(socket, frame),
      close: (socket, code, reason) => closeQuietly(socket, code, reason),
      broadcast: (frame) => this.hub.broadcast(frame),
    });
    void ctx.blockConcurrencyWhile(async () => {
      this.stores.meta.migrate();
      // A fresh instance has no turn in memory: any turn storage calls running was cut short.
      closeCutTurns(this.stores);
    });
  }

  // --- the doors: how each reads its request, and which follower listens ---------------------------

  async startTurn(args: StartTurnArgs): Promise<Result<TurnStarted>> {
    return guard(async () => {
      const follower = createFollower(args.request.stream);
      const launched = await this.runner.launch(args.request, { sessionId: args.sessionId, model: args.model, follower, ...(args.idempotency ? { idempotency: args.idempotency } : {}) });
      // A retry with a known key runs nothing: it follows (or replays) the turn the key started.
      if ('replay' in launched) return { ...(await this.runner.follow(launched.replay, args.request.stream, 0).result()), replayed: true };
      return { ...(await follower.result()), replayed: false };
    });
  }

  /**
   * An AG-UI run (`POST /ag-ui`): what it brings that the session has not seen becomes a turn, whose
   * events go out as AG-UI's. Its id comes back too: the Worker cancels the turn if the client leaves.
   */
  async startAguiRun(args: { sessionId: string; input: RunAgentInput; model: string }): Promise<Result<Stream & { turnId: string }>> {
    return guard(async () => {
      const run = aguiRun(args.input, this.stores);
      const follower = aguiFollower({ threadId: args.input.threadId, runId: args.input.runId });
      const launched = await this.runner.launch(run.request, { sessionId: args.sessionId, model: args.model, follower });
      run.taken();
      return { ...(await streamOf(follower)), turnId: 'turnId' in launched ? launched.turnId : '' };
    });
  }

  /** A Harness run (`POST /harness/chat`): a turn whose events go out as seed 001's, in either format. */
  async startHarnessRun(args: { sessionId: string; request: TurnRequest; model: string; format: HarnessFormat; sampling?: { temperature?: number } }): Promise<Result<Stream>> {
    return guard(async () => {
      const follower = harnessFollower(args.sessionId, args.format);
      await this.runner.launch(args.request, { sessionId: args.sessionId, model: args.model, follower, ...(args.sampling ? { sampling: args.sampling } : {}) });
      return streamOf(follower);
    });
  }

  /**
   * A sub-agent's run in this session (`agent_spawn` of another session): the task as its user
   * message, the caller's rules, and its internal events streamed back as they happen.
   */
  async runSubagent(args: { sessionId: string; task: string; model: string; rules: PermissionRule[] }): Promise<Result<Stream>> {
    return guard(async () => {
      const follower = eventsFollower();
      const request: TurnRequest = { messages: [{ role: 'user', content: args.task }], stream: 'none' };
      await this.runner.launch(request, { sessionId: args.sessionId, model: args.model, follower, subagent: { rules: args.rules } });
      return streamOf(follower);
    });
  }

  // --- the turns and the session -------------------------------------------------------------------

  /** The events of a turn after `after`, then the live turn to its end (resumable streams). */
  async followTurn(turnId: string, after: number, mode: SseMode | undefined): Promise<Result<Stream>> {
    return guard(async () => {
      const turn = this.requireTurn(turnId);
      return streamOf(this.runner.follow(turn, mode ?? storedSseMode(turn.mode), after));
    });
  }

  /** Stops the running turn: the abort reaches the model call and running tools; answers once it ended. */
  async cancelTurn(turnId: string): Promise<Result<{ turn: CancelledTurn }>> {
    return guard(async () => {
      const turn = this.requireTurn(turnId);
      if (this.runner.runningTurnId !== turnId) {
        throw new ApiError(409, 'turn_not_running', `The turn ${turnId} is not running (it is ${turn.status}).`, { details: { status: turn.status } });
      }
      await this.runner.stop();
      const ended = this.stores.turns.turn(turnId);
      const result: CancelledTurn = { turnId, status: ended?.status ?? 'cancelled' };
      if (ended?.stopReason) result.stopReason = ended.stopReason;
      return { turn: result };
    });
  }

  async getSession(sessionId: string): Promise<Result<{ session: SessionView }>> {
    return guard(async () => {
      this.requireSession();
      const runningTurnId = this.runner.runningTurnId;
      const session: SessionView = { sessionId, ...summarize(this.stores), running: runningTurnId !== undefined };
      if (runningTurnId) session.runningTurnId = runningTurnId;
      return { session };
    });
  }

  async getMessages(query: MessagesQuery): Promise<Result<MessagesPage>> {
    return guard(async () => {
      this.requireSession();
      return this.stores.history.page(query.limit, query.cursor);
    });
  }

  async deleteSession(): Promise<Result<{ deleted: true }>> {
    return guard(async () => {
      this.requireSession();
      if (this.runner.runningTurnId) throw new ApiError(409, 'session_busy', 'A turn is running in this session; delete it after the turn stops.');
      this.titles.abandon();
      await this.housekeeping.deleteAlarm();
      await this.ctx.storage.deleteAll();
      this.stores.meta.forget();
      this.stores.history.forget();
      // The session is gone: its sockets are told so and closed.
      this.hub.tell({ type: 'session-deleted' });
      return { deleted: true as const };
    });
  }

  // --- the chat socket (seed 003) and the alarm ----------------------------------------------------

  /** The upgrade, authenticated by the Worker, which names the session and user in headers. */
  override async fetch(request: Request): Promise<Response> {
    return this.hub.upgrade(request);
  }

  override async webSocketMessage(socket: WebSocket, message: string | ArrayBuffer): Promise<void> {
    await this.door.handle(socket, message, socket.deserializeAttachment() as SocketAttachment);
  }

  override async webSocketClose(socket: WebSocket, code: number, reason: string): Promise<void> {
    this.hub.closed(socket, code, reason);
  }

  override async webSocketError(socket: WebSocket, error: unknown): Promise<void> {
    console.warn('socket error', error);
    this.hub.closed(socket, 1011, 'Socket error.');
  }

  override async alarm(): Promise<void> {
    await this.housekeeping.alarm();
  }

  // --- inside ----------------------------------------------------------------------------------------

  /** After a turn: answers staged on a socket while it ran may complete the set; a new session gets its title. */
  private afterTurn(door: Door, outcome: TurnOutcome | undefined, model: ModelHandle, config: Config): void {
    this.housekeeping.turnEnded();
    if (!outcome) return;
    this.door.resumeIfAnswered(door.sessionId, door.socket?.requestId ?? null).catch((error) => {
      if (!(error instanceof ApiError)) console.error('socket resume failed', error);
    });
    if (config.titles && outcome.stopReason === 'end_turn') void this.titles.name(door.sessionId, model);
  }

  private userId(): string {
    return userOfObjectName(this.ctx.id.name);
  }

  private requireSession(): void {
    if (!this.stores.meta.exists()) throw new ApiError(404, 'session_not_found', 'No session has this id. A session is created by its first turn.');
  }

  private requireTurn(turnId: string): TurnRow {
    this.requireSession();
    const turn = this.stores.turns.turn(turnId);
    if (!turn) throw new ApiError(404, 'turn_not_found', `This session has no turn ${turnId}.`);
    return turn;
  }
}
