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
import { aguiFollower, eventsFollower, harnessFollower, queuedFollower, storedSseMode, streamOf } from './followers';
import { Housekeeping } from './housekeeping';
import { userOfObjectName } from './object-name';
import { closeCutTurns } from './recovery';
import { guard, type Result } from './result';
import { SocketDoor, type SocketAttachment } from './socket-door';
import { closeQuietly, SocketHub } from './socket-hub';
import { activateBranch } from './branching';
import { exportBranch, importFork, type BranchCopy } from './forks';
import { branchesView, messagesPage, type BranchView, type MessagesPage } from './history-views';
import { openStores, summarize, type SessionStores, type SessionSummary } from './store/stores';
import type { TurnRow } from './store/turns';
import { subagentRunner, type ChildSession } from './subagents';
import { Titles } from './titles';
import { Toolsets } from './toolsets';
import { TurnQueue } from './turn-queue';
import { TurnRunner, type Door } from './turn-runner';
import { admit, cancelTurn, followerOf, startTurnsApiTurn, type CancelledTurn, type Session, type StartTurnArgs, type TurnStarted } from './turns-door';

export type SessionView = SessionSummary & { sessionId: string; running: boolean; runningTurnId?: string };
type Stream = { body: ReadableStream<Uint8Array> };

export class SessionObject extends DurableObject<Env> {
  private readonly stores: SessionStores;
  private readonly hub: SocketHub;
  private readonly door: SocketDoor;
  private readonly runner: TurnRunner;
  private readonly queue: TurnQueue;
  private readonly titles: Titles;
  private readonly housekeeping: Housekeeping;
  private readonly toolsets = new Toolsets();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.stores = openStores(ctx.storage);
    this.hub = new SocketHub(ctx);
    this.titles = new Titles(this.stores, (event) => this.hub.tell(event));
    this.housekeeping = new Housekeeping(ctx.storage, this.stores, () => this.runner.runningTurnId !== undefined, () => void this.queue.drain());
    this.runner = new TurnRunner({
      stores: this.stores,
      bindings: env.AI ? { ai: env.AI } : {},
      config: () => readConfig(env),
      tools: (subagent) => this.toolsets.forTurn(readConfig(env), subagent),
      sessionListener: (door, config) => this.hub.turnListener(door, config.toolVisibility),
      subagents: (sessionId, model, rules, config) =>
        subagentRunner({ sessionId, userId: userOfObjectName(ctx.id.name), model, rules, config, child: (name) => env.SESSIONS.getByName(name) as unknown as ChildSession }),
      started: () => this.housekeeping.keepAwake(),
      ended: (door, outcome, model, config) => this.afterTurn(door, outcome, model, config),
      userId: () => userOfObjectName(ctx.id.name),
    });
    this.queue = new TurnQueue({ stores: this.stores, runner: this.runner, maxQueued: () => readConfig(env).maxQueuedTurns, keepAwake: () => this.housekeeping.keepAwake() });
    this.door = new SocketDoor({
      env,
      stores: this.stores,
      isRunning: () => this.runner.runningTurnId !== undefined,
      admit: (request, door) => admit(this.session(), request, door, undefined, false),
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

  /** The turns API (`POST .../turns`), with its policy for a session that is busy (`turns-door.ts`). */
  async startTurn(args: StartTurnArgs): Promise<Result<TurnStarted>> {
    return guard(() => startTurnsApiTurn(args, this.session()));
  }

  /**
   * An AG-UI run (`POST /ag-ui`): what it brings that the session has not seen becomes a turn, whose
   * events go out as AG-UI's. Its id comes back too: the Worker cancels the turn if the client leaves.
   */
  async startAguiRun(args: { sessionId: string; input: RunAgentInput; model: string }): Promise<Result<Stream & { turnId: string }>> {
    return guard(async () => {
      const run = aguiRun(args.input, this.stores);
      const door = { sessionId: args.sessionId, model: args.model, ifBusy: args.input.forwardedProps?.ifBusy ?? 'reject' };
      const admitted = await admit(this.session(), run.request, door, (from) => aguiFollower({ threadId: args.input.threadId, runId: args.input.runId }, from), true);
      run.taken();
      // The Worker cancels this turn if the client leaves: never a running turn it only joined.
      const turnId = admitted.kind === 'started' ? admitted.turnId : admitted.kind === 'queued' ? admitted.body.turnId : '';
      return { ...(await streamOf(followerOf(admitted))), turnId };
    });
  }

  /** A Harness run (`POST /harness/chat`): a turn whose events go out as seed 001's, in either format. */
  async startHarnessRun(args: { sessionId: string; request: TurnRequest; model: string; format: HarnessFormat; sampling?: { temperature?: number } }): Promise<Result<Stream>> {
    return guard(async () => {
      const door = { sessionId: args.sessionId, model: args.model, ifBusy: args.request.ifBusy, ...(args.sampling ? { sampling: args.sampling } : {}) };
      const admitted = await admit(this.session(), args.request, door, (from) => harnessFollower(args.sessionId, args.format, from), true);
      return streamOf(followerOf(admitted));
    });
  }

  /**
   * A sub-agent's run in this session (`agent_spawn` of another session): the task as its user
   * message, the caller's rules, and its internal events streamed back as they happen.
   */
  async runSubagent(args: { sessionId: string; task: string; model: string; rules: PermissionRule[] }): Promise<Result<Stream>> {
    return guard(async () => {
      const follower = eventsFollower();
      const request: TurnRequest = { messages: [{ role: 'user', content: args.task }], stream: 'none', ifBusy: 'reject' };
      await this.runner.launch(request, { sessionId: args.sessionId, model: args.model, follower, subagent: { rules: args.rules } });
      return streamOf(follower);
    });
  }

  // --- the turns and the session -------------------------------------------------------------------

  /** The events of a turn after `after`, then the live turn to its end (resumable streams). */
  async followTurn(turnId: string, after: number, mode: SseMode | undefined): Promise<Result<Stream>> {
    return guard(async () => {
      const turn = this.requireTurn(turnId);
      const sseMode = mode ?? storedSseMode(turn.mode);
      return streamOf(turn.status === 'queued' ? this.queue.follow(turnId, queuedFollower(sseMode, after)) : this.runner.follow(turn, sseMode, after));
    });
  }

  /** Stops the running turn (the abort reaches the model call and running tools), or takes a queued one out. */
  async cancelTurn(turnId: string): Promise<Result<{ turn: CancelledTurn }>> {
    return guard(async () => ({ turn: await cancelTurn(this.session(), this.requireTurn(turnId)) }));
  }

  async getSession(sessionId: string): Promise<Result<{ session: SessionView }>> {
    return guard(async () => {
      const runningTurnId = this.runner.runningTurnId;
      return { session: { sessionId, ...summarize(this.existing()), running: runningTurnId !== undefined, ...(runningTurnId ? { runningTurnId } : {}) } satisfies SessionView };
    });
  }

  async getMessages(query: MessagesQuery): Promise<Result<MessagesPage>> {
    return guard(async () => messagesPage(this.existing().history, query));
  }

  // --- branches and forks (docs/branches.md) --------------------------------------------------------

  async getBranches(): Promise<Result<{ branches: BranchView[] }>> {
    return guard(async () => branchesView(this.existing().history));
  }

  async activateBranch(leafId: string): Promise<Result<BranchView>> {
    return guard(async () => activateBranch(this.existing().history, leafId, this.runner.runningTurnId));
  }

  /** A fork's two ends: the copy of a branch this session gives, and the new session that takes it whole. */
  async exportBranch(sessionId: string, upToId: string | undefined): Promise<Result<BranchCopy>> {
    return guard(async () => exportBranch(this.existing(), sessionId, upToId));
  }

  async importFork(sessionId: string, copy: BranchCopy): Promise<Result<{ sessionId: string }>> {
    return guard(() => importFork(this.stores, sessionId, copy));
  }

  async deleteSession(): Promise<Result<{ deleted: true }>> {
    return guard(async () => {
      if (this.existing() && this.runner.runningTurnId) throw new ApiError(409, 'session_busy', 'A turn is running in this session; delete it after the turn stops.');
      this.titles.abandon();
      await this.housekeeping.erase();
      this.queue.forget();
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

  /**
   * After a turn: answers staged on a socket while it ran may complete the set; a new session gets
   * its title; the queue goes on (steered messages the turn did not take wait there already).
   */
  private afterTurn(door: Door, outcome: TurnOutcome | undefined, model: ModelHandle, config: Config): void {
    this.housekeeping.turnEnded();
    if (outcome) {
      this.door.resumeIfAnswered(door.sessionId, door.socket?.requestId ?? null).catch((error) => {
        if (!(error instanceof ApiError)) console.error('socket resume failed', error);
      });
      if (config.titles && outcome.stopReason === 'end_turn') void this.titles.name(door.sessionId, model);
    }
    void this.queue.drain();
  }

  private session(): Session {
    return { stores: this.stores, runner: this.runner, queue: this.queue };
  }

  /** The stores of a session that exists (404 otherwise). */
  private existing(): SessionStores {
    if (!this.stores.meta.exists()) throw new ApiError(404, 'session_not_found', 'No session has this id. A session is created by its first turn.');
    return this.stores;
  }

  private requireTurn(turnId: string): TurnRow {
    const turn = this.existing().turns.turn(turnId);
    if (!turn) throw new ApiError(404, 'turn_not_found', `This session has no turn ${turnId}.`);
    return turn;
  }
}
