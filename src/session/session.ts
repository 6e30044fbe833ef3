/**
 * One session, which its Durable Object's shell (`session-object.ts`) loads before its first event:
 * the RPC surface, the socket handlers and the alarm, each handed to the part that owns it
 * (`assembly.ts`): the turn runner (the one launcher of every door), the socket hub and door,
 * sub-agents, titles, housekeeping, the user link, and the stores (`store/`). A door's method only
 * says how it reads its request and which follower listens. Expected failures return as values.
 */
import type { RunAgentInput } from '../api/agui-request';
import type { MessagesQuery } from '../api/messages-query';
import type { SseMode, TurnRequest } from '../api/turn-request';
import type { Env } from '../env';
import { ApiError } from '../lib/errors';
import type { PermissionRule } from '../tools/permission-rules';
import type { HarnessFormat } from '../transport/harness-framing';
import type { DayTotals } from '../users/quota';
import { assemble, wakeUp, type SessionParts } from './assembly';
import { aguiFollower, createFollower, eventsFollower, harnessFollower, queuedFollower, storedSseMode, streamOf } from './followers';
import { guard, type Result } from './result';
import type { SocketAttachment } from './socket-door';
import { activateBranch } from './branching';
import { exportBranch, importFork, type BranchCopy } from './forks';
import { branchesView, messagesPage, type BranchView, type MessagesPage } from './history-views';
import { summarize, type SessionStores, type SessionView } from './store/stores';
import { turnsPage, type TurnsQuery } from './turn-list';
import { admit, cancelTurn, followerOf, ownTurnId, readTurn, startTurnsApiTurn, type CancelledTurn, type StartTurnArgs, type TurnRead, type TurnStarted } from './turns-door';
import type { TurnsPage } from '../api/background-responses';
import type { ScheduleRequest, ScheduleView } from '../api/schedule-requests';
import type { DeliveryView } from './store/webhook-deliveries';
import { exportSession } from './user-data';
import { eraseForUser, eraseSession } from './erasure';

type Stream = { body: ReadableStream<Uint8Array> };
/** What the Worker learned of the user's totals when it admitted the request (docs/users.md). */
type Told = { today?: DayTotals };

export class Session {
  readonly parts: SessionParts;

  constructor(private readonly ctx: DurableObjectState, env: Env) {
    this.parts = assemble(ctx, env);
  }

  /** Run when its object wakes, before any event is delivered. */
  wake = (): Promise<void> => wakeUp(this.parts, this.ctx.storage);

  // --- the doors: how each reads its request, and which follower listens ---------------------------

  /** The turns API (`POST .../turns`), with its policy for a session that is busy (`turns-door.ts`). */
  async startTurn(args: StartTurnArgs & Told): Promise<Result<TurnStarted>> {
    this.learn(args);
    return guard(() => startTurnsApiTurn(args, this.parts));
  }

  /**
   * An AG-UI run (`POST /ag-ui`): what it brings that the session has not seen becomes a turn, whose
   * events go out as AG-UI's. Its id comes back too: the Worker cancels the turn if the client leaves.
   */
  async startAguiRun(args: { sessionId: string; input: RunAgentInput; model: string } & Told): Promise<Result<Stream & { turnId: string }>> {
    this.learn(args);
    return guard(async () => {
      const { aguiRun } = await import('./agui-door'); // Loaded by the first AG-UI run: no other door reads its schemas.
      const run = aguiRun(args.input, this.parts.stores);
      const door = { sessionId: args.sessionId, model: args.model, ifBusy: args.input.forwardedProps?.ifBusy ?? 'reject' };
      const admitted = await admit(this.parts, run.request, door, (from) => aguiFollower({ threadId: args.input.threadId, runId: args.input.runId }, from), true);
      run.taken();
      // The Worker cancels this turn if the client leaves: never a running turn it only joined.
      return { ...(await streamOf(followerOf(admitted))), turnId: ownTurnId(admitted) };
    });
  }

  /** A Harness run (`POST /harness/chat`): a turn whose events go out as the Harness protocol's, in either format. */
  async startHarnessRun(args: { sessionId: string; request: TurnRequest; model: string; format: HarnessFormat; sampling?: { temperature?: number } } & Told): Promise<Result<Stream>> {
    this.learn(args);
    return guard(async () => {
      const door = { sessionId: args.sessionId, model: args.model, ifBusy: args.request.ifBusy, ...(args.sampling ? { sampling: args.sampling } : {}) };
      const admitted = await admit(this.parts, args.request, door, (from) => harnessFollower(args.sessionId, args.format, from), true);
      return streamOf(followerOf(admitted));
    });
  }

  /**
   * A run for a door that encodes in the Worker (MCP's `chat`, A2A): the internal events, one JSON
   * line each, under the request's policy for a busy session (a queued run streams once it starts),
   * and the turn's id, for the Worker to cancel it if its client leaves.
   */
  async startEventsRun(args: { sessionId: string; request: TurnRequest; model: string } & Told): Promise<Result<Stream & { turnId: string }>> {
    this.learn(args);
    return guard(async () => {
      const admitted = await admit(this.parts, args.request, { sessionId: args.sessionId, model: args.model, ifBusy: args.request.ifBusy }, (from) => eventsFollower(from.after), true);
      return { ...(await streamOf(followerOf(admitted))), turnId: ownTurnId(admitted) };
    });
  }

  /**
   * A sub-agent's run in this session (`agent_spawn` of another session): the task as its user
   * message, the caller's rules, and its internal events streamed back as they happen.
   */
  async runSubagent(args: { sessionId: string; parentSessionId: string; task: string; model: string; rules: PermissionRule[] } & Told): Promise<Result<Stream>> {
    this.learn(args);
    return guard(async () => {
      const follower = eventsFollower();
      const request: TurnRequest = { messages: [{ role: 'user', content: args.task }], stream: 'none', ifBusy: 'reject' };
      await this.parts.runner.launch(request, { sessionId: args.sessionId, model: args.model, follower, subagent: { rules: args.rules, parentSessionId: args.parentSessionId } });
      return streamOf(follower);
    });
  }

  // --- the turns and the session -------------------------------------------------------------------

  /** The events of a turn after `after`, then (`live`) the live turn to its end (resumable streams). */
  async followTurn(turnId: string, after: number, mode: SseMode | 'events' | undefined, live = true): Promise<Result<Stream>> {
    return guard(async () => {
      const turn = await this.requireTurn(turnId);
      // `events`: the internal events, for a door that encodes in the Worker (A2A's resubscribe, and its get without `live`).
      const follower = mode === 'events' ? eventsFollower(after) : (turn.status === 'queued' ? queuedFollower : createFollower)(mode ?? storedSseMode(turn.mode), after);
      return streamOf(turn.status === 'queued' && live ? this.parts.queue.follow(turnId, follower) : this.parts.runner.attach(turn, follower, live));
    });
  }

  /** Stops the running turn (the abort reaches the model call and running tools), or takes a queued one out. */
  async cancelTurn(turnId: string): Promise<Result<{ turn: CancelledTurn }>> {
    return guard(async () => ({ turn: await cancelTurn(this.parts, await this.requireTurn(turnId)) }));
  }

  async getSession(sessionId: string): Promise<Result<{ session: SessionView }>> {
    return guard(async () => ({ session: summarize(await this.existing(), sessionId, this.parts.runner.runningTurnId) }));
  }

  async getMessages(query: MessagesQuery): Promise<Result<MessagesPage>> {
    return guard(async () => messagesPage((await this.existing()).history, query));
  }

  // --- branches and forks (docs/branches.md) --------------------------------------------------------

  async getBranches(): Promise<Result<{ branches: BranchView[] }>> {
    return guard(async () => branchesView((await this.existing()).history));
  }

  async activateBranch(leafId: string): Promise<Result<BranchView>> {
    return guard(async () => this.told(activateBranch((await this.existing()).history, leafId, this.parts.runner.runningTurnId)));
  }

  /** A fork's two ends: the copy of a branch this session gives, and the new session that takes it whole. */
  async exportBranch(sessionId: string, upToId: string | undefined): Promise<Result<BranchCopy>> {
    return guard(async () => exportBranch(await this.existing(), sessionId, upToId));
  }

  async importFork(sessionId: string, copy: BranchCopy): Promise<Result<{ sessionId: string }>> {
    return guard(async () => this.told(await importFork(this.parts.stores, sessionId, copy, () => this.parts.runner.settled())));
  }

  async deleteSession(): Promise<Result<{ deleted: true }>> {
    return guard(async () => {
      if ((await this.existing()) && this.parts.runner.runningTurnId) throw new ApiError(409, 'session_busy', 'A turn is running in this session; delete it after the turn stops.');
      await eraseSession(this.parts);
      await this.parts.users.delivered();
      return { deleted: true as const };
    });
  }

  // --- turns without a client (docs/background.md) ------------------------------------------------------

  async getTurn(turnId: string, read: TurnRead['read'] = 'whole'): Promise<Result<TurnRead['result']>> {
    return guard(async () => readTurn(this.parts, await this.requireTurn(turnId), read));
  }

  async listTurns(query: TurnsQuery): Promise<Result<TurnsPage & { total?: number }>> {
    return guard(async () => (await this.existing(), turnsPage(this.parts, query)));
  }

  async getDeliveries(): Promise<Result<{ deliveries: DeliveryView[] }>> {
    return guard(async () => ({ deliveries: (await this.existing()).deliveries.list() }));
  }

  async createSchedule(sessionId: string, spec: ScheduleRequest & { model: string }): Promise<Result<{ scheduleId: string; nextRunAt: string }>> {
    return guard(() => this.told(this.parts.schedules.create(sessionId, spec)));
  }

  async getSchedules(): Promise<Result<{ schedules: ScheduleView[] }>> {
    return guard(async () => ({ schedules: (await this.existing(), this.parts.schedules.list()) }));
  }

  async deleteSchedule(scheduleId: string): Promise<Result<{ deleted: true }>> {
    return guard(async () => (this.parts.schedules.remove(scheduleId), { deleted: true as const }));
  }

  // --- the user's data (docs/users.md) ---------------------------------------------------------------

  /** This session's lines of its user's export. */
  async exportForUser(sessionId: string): Promise<Result<Stream>> {
    return guard(async () => ({ body: exportSession(await this.existing(), sessionId, this.parts.runner.runningTurnId !== undefined, () => this.parts.schedules.list()) }));
  }

  /** Erases the session for its user's erasure: a running turn is stopped first, not waited for. */
  async eraseForUser(): Promise<Result<{ erased: boolean }>> {
    return guard(async () => ({ erased: await eraseForUser(this.parts) }));
  }

  // --- the chat socket (docs/chat-socket.md) and the alarm ----------------------------------------------------

  /** The upgrade, authenticated by the Worker, which names the session and user in headers. */
  async fetch(request: Request): Promise<Response> {
    return this.parts.hub.upgrade(request);
  }

  async webSocketMessage(socket: WebSocket, message: string | ArrayBuffer): Promise<void> {
    await this.parts.door.handle(socket, message, socket.deserializeAttachment() as SocketAttachment);
  }

  async webSocketClose(socket: WebSocket, code: number, reason: string): Promise<void> {
    this.parts.hub.closed(socket, code, reason);
  }

  async webSocketError(socket: WebSocket, error: unknown): Promise<void> {
    console.warn('socket error', error);
    this.parts.hub.closed(socket, 1011, 'Socket error.');
  }

  async alarm(): Promise<void> {
    await this.parts.housekeeping.alarm();
  }

  // --- inside ----------------------------------------------------------------------------------------

  /** The session's entry changed outside a turn: its user's list learns it before the answer goes out. */
  private async told<T>(result: T): Promise<T> {
    const sessionId = this.parts.stores.meta.sessionId();
    if (sessionId !== undefined) this.parts.users.changed(sessionId);
    await this.parts.users.delivered();
    return result;
  }

  private learn({ today }: Told): void {
    if (today) this.parts.users.learn(today);
  }

  /** The stores of a session that exists (404 otherwise), once a running turn's opening is stored (a task at most: decision 43). */
  private async existing(): Promise<SessionStores> {
    await this.parts.runner.settled();
    if (!this.parts.stores.meta.exists()) throw new ApiError(404, 'session_not_found', 'No session has this id. A session is created by its first turn.');
    return this.parts.stores;
  }

  private async requireTurn(turnId: string) {
    const turn = (await this.existing()).turns.turn(turnId);
    if (!turn) throw new ApiError(404, 'turn_not_found', `This session has no turn ${turnId}.`);
    return turn;
  }
}
