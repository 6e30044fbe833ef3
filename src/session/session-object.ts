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
import { runTurn, type ResolvedAnswer, type TurnInput, type TurnOutcome } from '../agent/run-turn';
import { makeTitle } from '../agent/title';
import { INTERRUPTED_TEXT } from '../agent/tool-phase';
import { emptyUsage } from '../agent/usage';
import type { MessagesQuery } from '../api/messages-query';
import { assistantText } from '../api/content';
import { sseModeSchema, type SseMode, type StreamMode, type TurnRequest } from '../api/turn-request';
import { readConfig, type Config } from '../config';
import type { Env } from '../env';
import { ApiError, type ApiErrorBody } from '../lib/errors';
import { newId } from '../lib/ids';
import { log as writeLog } from '../lib/log';
import type { RunAgentInput } from '../api/agui-request';
import type { HarnessFormat } from '../http/harness-framing';
import { createSocketEncoder } from '../protocol/socket-encoder';
import { errorFrame, type ServerFrame } from '../protocol/socket-frames';
import { resolveModel } from '../providers/registry';
import type { ModelHandle } from '../providers/types';
import { checkToolNames } from '../api/tool-names';
import { DEFAULT_TOOLS, defaultTools, SUBAGENT_TOOLS, subagentTools } from '../tools/default-tools';
import type { PermissionRule } from '../tools/permission-rules';
import { ToolError, type SubagentRunner } from '../tools/types';
import { sessionObjectName, userOfObjectName, type SessionRpc } from '../http/session-stub';
import type { McpToolbox } from '../tools/mcp/mcp-toolbox';
import { createToolRegistry, type Toolset } from '../tools/registry';
import { EVENT_LOG_MAX_TURNS, EVENT_LOG_RETENTION_MS, FLUSH_EVENTS, readStoredEvents, TurnEventLog, type LoggedEvent } from './event-log';
import { aguiTurn, type AguiTurn } from './agui-door';
import { aguiFollower, createFollower, eventsFollower, harnessFollower, MAX_FOLLOWERS, socketListener, type Follower, type StartedTurn } from './followers';
import { SOCKET_EXPIRES_HEADER, SOCKET_SESSION_HEADER, SOCKET_USER_HEADER, SocketDoor, type SocketAttachment, type SocketHost } from './socket-door';
import { SocketStore } from './socket-store';
import { SessionStore, type SessionSummary } from './store';
import { TurnStore, type TurnRow } from './turn-store';
import { createTurnRecorder } from './turn-recorder';
import { attempt, TurnOutput } from './turn-output';
import { validateTurn } from './validate-turn';

/** While a turn runs, an alarm this often keeps the object awake and finds turns cut by eviction. */
const KEEPALIVE_MS = 30_000;
/** Turns between two prunes of the event logs outside the alarm (see `keepAwake`). */
const PRUNE_EVERY_TURNS = 16;
/** Sockets one session accepts at once (tabs, devices); more are refused. */
const MAX_SOCKETS = 32;
/** Title attempts per session object before it gives up until it wakes again (a model that never answers). */
const MAX_TITLE_ATTEMPTS = 3;
/** A title is not worth a long wait: past this its call is abandoned. */
const TITLE_TIMEOUT_MS = 30_000;
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
  /** Settles once the turn has ended and been cleaned up; never rejects. */
  done: Promise<void>;
  output: TurnOutput;
};

type LaunchArgs = {
  sessionId: string;
  request: TurnRequest;
  model: string;
  idempotency?: StartTurnArgs['idempotency'];
  /** The follower of the request that starts the turn (none for a socket's completion). */
  first?: Follower;
  /** Set when a chat socket starts the turn. */
  socket?: { requestId: string | null; reasoning: boolean };
  /** The turn's server tools: the built-in ones and the MCP servers' (closed when the turn ends). */
  tools: Toolset;
  /** Sampling the request asked for (the Harness door's `chatModel.temperature`). */
  sampling?: { temperature?: number };
  /** A sub-agent's turn: the permission rules of the session that spawned it. */
  inheritedRules?: PermissionRule[];
};

export class SessionObject extends DurableObject<Env> {
  private readonly store: SessionStore;
  private readonly staged: SocketStore;
  private readonly turns: TurnStore;
  private readonly door: SocketDoor;
  private running: RunningTurn | undefined;
  /** Whether a socket may be open: known on wake, set by an upgrade, counted again when one closes. */
  private socketsOpen: boolean;
  private titling = false;
  private mcp: McpToolbox | undefined;
  private titleAttempts = 0;
  private turnsSincePrune = 0;
  /** When the alarm fires, as far as this instance set it (unknown after a wake: the first turn sets it). */
  private alarmAt: number | undefined;
  /** Aborts side work (a title call) when the session is deleted. */
  private sideWork = new AbortController();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.store = new SessionStore(ctx.storage);
    this.staged = new SocketStore(ctx.storage);
    this.turns = new TurnStore(ctx.storage, this.store);
    const host: SocketHost = {
      env,
      store: this.store,
      staged: this.staged,
      isRunning: () => this.running !== undefined,
      tools: () => this.turnTools(readConfig(env)),
      launch: (sessionId, request, model, socket, tools) => this.startChecked({ sessionId, request, model, socket, tools }),
      stop: () => this.stopRunning(),
      send: (socket, frame) => this.send(socket, frame),
      close: (socket, code, reason) => closeQuietly(socket, code, reason),
      broadcast: (frame) => this.broadcast(frame),
    };
    this.door = new SocketDoor(host);
    this.socketsOpen = ctx.getWebSockets().length > 0;
    void ctx.blockConcurrencyWhile(async () => {
      this.store.migrate();
      // A fresh instance has no turn in memory: any turn storage calls running was cut short.
      this.closeInterruptedTurns();
    });
  }

  async startTurn(args: StartTurnArgs): Promise<Result<TurnStarted>> {
    return guard(async () => {
      // The tools first (MCP lists may need a fetch): from the key's check to the lock nothing awaits,
      // so two retries with one key never both start a turn.
      const tools = await this.turnTools(readConfig(this.env));
      // A retry with a known key runs nothing: it follows (or replays) the turn the key started.
      const prior = args.idempotency && this.turns.turnByIdempotencyKey(args.idempotency.key, Date.now() - IDEMPOTENCY_WINDOW_MS);
      if (prior) {
        void tools.close();
        if (prior.requestHash !== args.idempotency?.hash) {
          throw new ApiError(422, 'idempotency_key_reused', 'This Idempotency-Key was used with a different request body. Use a new key for a new request.');
        }
        return { ...(await this.follow(prior, args.request.stream, 0).result()), replayed: true };
      }

      const first = createFollower(args.request.stream);
      this.startChecked({ ...args, first, tools });
      return { ...(await first.result()), replayed: false };
    });
  }

  /**
   * An AG-UI run (`POST /ag-ui`): what it brings that the session has not seen becomes a turn, whose
   * events go out as AG-UI's. Its id comes back too: the Worker cancels the turn if the client leaves.
   */
  async startAguiRun(args: { sessionId: string; input: RunAgentInput; model: string }): Promise<Result<{ body: ReadableStream<Uint8Array>; turnId: string }>> {
    return guard(async () => {
      const tools = await this.turnTools(readConfig(this.env));
      let turn: AguiTurn;
      try {
        const pending = this.store.exists() ? this.store.pendingCalls() : [];
        turn = aguiTurn(args.input, pending, (ids) => this.store.seenMessageIds(ids));
      } catch (error) {
        void tools.close();
        throw error;
      }
      const first = aguiFollower({ threadId: args.input.threadId, runId: args.input.runId });
      this.startChecked({ sessionId: args.sessionId, request: turn.request, model: args.model, first, tools });
      // Taken: the next run's copies of these messages are not new.
      this.store.rememberMessageIds(turn.newIds);
      const turnId = this.running?.turnId ?? '';
      const started = await first.result();
      if (started.kind !== 'sse') throw new Error('an AG-UI follower gave no stream');
      return { body: started.body, turnId };
    });
  }

  /** A Harness run (`POST /harness/chat`): a turn whose events go out as seed 001's, in either format. */
  async startHarnessRun(args: {
    sessionId: string;
    request: TurnRequest;
    model: string;
    format: HarnessFormat;
    sampling?: { temperature?: number };
  }): Promise<Result<{ body: ReadableStream<Uint8Array> }>> {
    return guard(async () => {
      const tools = await this.turnTools(readConfig(this.env));
      const first = harnessFollower(args.sessionId, args.format);
      this.startChecked({ sessionId: args.sessionId, request: args.request, model: args.model, first, tools, ...(args.sampling ? { sampling: args.sampling } : {}) });
      const started = await first.result();
      if (started.kind !== 'sse') throw new Error('a Harness follower gave no stream');
      return { body: started.body };
    });
  }

  /**
   * Checks a turn against the session's state and starts it. From the checks to the lock nothing
   * awaits, so no other request can slip in between. Throws `ApiError` when the turn is refused.
   */
  private startChecked(args: LaunchArgs): void {
    try {
      this.startTurnChecked(args);
    } catch (error) {
      void args.tools.close();
      throw error;
    }
  }

  private startTurnChecked(args: LaunchArgs): void {
    const config = readConfig(this.env);
    const pending = this.store.exists() ? this.store.pendingCalls() : [];
    const { answers, newMessages } = validateTurn(args.request, pending, this.running !== undefined);
    checkToolNames(args.request.tools ?? [], args.tools.registry.names());
    const model = resolveModel(args.model, config, { ai: this.env.AI });

    this.store.ensureCreated(args.sessionId);
    // Rules the answers bring last: kept before the turn runs, so that its own calls obey them.
    this.store.addRules(answers.flatMap(({ answer }) => (answer.kind === 'permission' ? (answer.rules ?? []) : [])));
    // A sub-agent's session takes the rules of the session that spawned it, for good: what is denied
    // or asked there is denied or asked here, in this turn and in any the user later runs here.
    if (args.inheritedRules) this.store.addRules(args.inheritedRules);
    const rules = this.store.rules();
    const turnId = newId('turn');
    this.turns.beginTurn(turnId, model.id, args.request.stream, args.idempotency);
    const output = new TurnOutput(createTurnRecorder(this.store, this.turns, turnId), new TurnEventLog(this.turns, turnId));
    const sockets = () =>
      createSocketEncoder({
        conversationId: args.sessionId,
        requestId: args.socket?.requestId ?? null,
        reasoning: args.socket?.reasoning ?? false,
        visibility: config.toolVisibility,
      });
    // Every socket of the session sees every turn, whichever door started it.
    output.add(socketListener(sockets, () => this.socketsOpen, (frames) => this.broadcast(...frames)));
    if (args.first) output.add(args.first);
    const controller = new AbortController();
    const started = Date.now();
    const tokenBudget = config.turnTokenBudget(model.id);

    const done = runTurn(this.turnInput(turnId, answers, newMessages, args.request), {
      model,
      tools: args.tools.registry,
      toolContext: { now: () => new Date(), notes: this.store, subagents: this.subagentRunner(args.sessionId, model.id, rules, config) },
      emit: output.emit,
      signal: controller.signal,
      systemPrompt: config.systemPrompt,
      maxIterations: config.maxIterations,
      toolTimeoutMs: config.toolTimeoutMs,
      toolConcurrency: config.toolConcurrency,
      retry: { ...DEFAULT_RETRY_POLICY, maxRetries: config.upstream.maxRetries },
      context: config.context,
      isToolCallIdUsed: (id) => this.store.hasToolCallId(id),
      newId,
      now: Date.now,
      ...(args.sampling ? { sampling: args.sampling } : {}),
      rules,
      ...(tokenBudget !== undefined ? { tokenBudget } : {}),
    })
      .catch((cause: unknown) => {
        console.error('turn crashed', turnId, cause);
        return undefined;
      })
      .then((outcome) => this.endTurn({ args, turnId, model, config, output, outcome, started }))
      .catch((error: unknown) => console.error('ending the turn failed', turnId, error));
    this.running = { turnId, controller, done, output };
    this.keepAwake();
  }

  /**
   * After the loop, however it ended (a crash included): the tools closed, the stop told if the loop
   * could not tell it, the log written, the followers closed, and the session free for the next
   * turn. Cleanup never depends on a step before it succeeding: `running` is cleared in `finally`.
   */
  private async endTurn(ended: {
    args: LaunchArgs;
    turnId: string;
    model: ModelHandle;
    config: Config;
    output: TurnOutput;
    outcome: TurnOutcome | undefined;
    started: number;
  }): Promise<void> {
    const { args, turnId, model, outcome, output } = ended;
    try {
      await args.tools.close().catch((error: unknown) => console.error('closing the tools failed', error));
      const error = outcome?.error ?? { code: 'internal_error', message: 'The server failed during the turn.' };
      output.end(
        {
          type: 'turn-stop',
          turnId,
          stopReason: 'error',
          usage: outcome?.usage ?? emptyUsage(),
          modelCalls: outcome?.modelCalls ?? [],
          calibration: this.store.calibration(),
          error,
        },
        () => this.turns.endTurn(turnId, error.code === 'cancelled' ? 'cancelled' : 'finished', 'error', error.code),
      );
      attempt('logging the turn', () => this.logTurn(args.sessionId, turnId, model.id, outcome, ended.started));
    } finally {
      this.running = undefined;
    }
    attempt('after the turn', () => {
      if (outcome) this.afterTurn(args, outcome, model, ended.config);
      this.turnsSincePrune = (this.turnsSincePrune + 1) % PRUNE_EVERY_TURNS;
      if (this.turnsSincePrune === 0) this.turns.prune(Date.now() - EVENT_LOG_RETENTION_MS, EVENT_LOG_MAX_TURNS);
    });
  }

  /**
   * The alarm that keeps a turn awake and, once no turn runs, prunes the event logs and sets itself
   * for the next one to expire (`scheduleAlarm`). An alarm already due within the keepalive serves
   * this turn too: setting one is a storage write, and it cost every turn more than the rest of its
   * bookkeeping together. So a session pays for one alarm per burst of turns, not two per turn, and
   * the logs a busy session keeps are bounded by the prune every `PRUNE_EVERY_TURNS` turns.
   */
  private keepAwake(): void {
    const now = Date.now();
    if (this.alarmAt !== undefined && this.alarmAt > now && this.alarmAt <= now + KEEPALIVE_MS) return;
    void this.setAlarm(now + KEEPALIVE_MS);
  }

  private setAlarm(at: number): Promise<void> {
    this.alarmAt = at;
    return this.ctx.storage.setAlarm(at);
  }

  private deleteAlarm(): Promise<void> {
    this.alarmAt = undefined;
    return this.ctx.storage.deleteAlarm();
  }

  /** The turn's record in the structured log: who, which model, how it ended, what it used, how long. */
  private logTurn(sessionId: string, turnId: string, model: string, outcome: TurnOutcome | undefined, started: number): void {
    const errorCode = outcome ? outcome.error?.code : 'internal_error';
    writeLog({
      kind: 'turn',
      session: sessionId,
      turn: turnId,
      user: userOfObjectName(this.ctx.id.name),
      model,
      stopReason: outcome?.stopReason ?? 'error',
      ...(errorCode ? { errorCode } : {}),
      latencyMs: Date.now() - started,
      usage: outcome?.usage ?? emptyUsage(),
      modelCalls: outcome?.modelCalls.length ?? 0,
    });
  }

  /**
   * The server tools for a turn: the built-in ones, and the tools of the deployment's MCP servers
   * (their lists kept by this session's toolbox for `MCP_LIST_TTL_SECONDS`).
   */
  private async turnTools(config: Config, subagent = false): Promise<Toolset> {
    if (!config.mcp) return { registry: subagent ? subagentTools : defaultTools, close: async () => {} };
    // Loaded on first use: a deployment without MCP servers never evaluates the MCP client.
    const { McpToolbox } = await import('../tools/mcp/mcp-toolbox');
    this.mcp ??= new McpToolbox(config.mcp);
    const turn = await this.mcp.forTurn();
    return { registry: createToolRegistry([...(subagent ? SUBAGENT_TOOLS : DEFAULT_TOOLS), ...turn.tools]), close: () => turn.close() };
  }

  /**
   * A sub-agent's run in this session (`agent_spawn` of another session): the task as its user
   * message, the server tools but `agent_spawn`, and its internal events streamed back as they happen.
   */
  async runSubagent(args: { sessionId: string; task: string; model: string; rules: PermissionRule[] }): Promise<Result<{ body: ReadableStream<Uint8Array> }>> {
    return guard(async () => {
      const tools = await this.turnTools(readConfig(this.env), true);
      const first = eventsFollower();
      const request: TurnRequest = { messages: [{ role: 'user', content: args.task }], stream: 'none' };
      this.startChecked({ sessionId: args.sessionId, request, model: args.model, first, tools, inheritedRules: args.rules });
      const started = await first.result();
      if (started.kind !== 'sse') throw new Error('an events follower gave no stream');
      return { body: started.body };
    });
  }

  /**
   * Runs sub-agents for this session's turns: each in a session of its own (same user, an id made
   * from this one's), bound by this session's permission rules, its events reported as they come,
   * its last answer returned. A cancel of the calling turn cancels the sub-agent's. One turn starts
   * at most `MAX_SUBAGENTS_PER_TURN` of them: each is a paid model call, and one model response may
   * ask for any number; the calls past the cap get an error result the model reads.
   */
  private subagentRunner(sessionId: string, model: string, rules: PermissionRule[], config: Config): SubagentRunner {
    let spawned = 0;
    return async (task, report) => {
      if (spawned >= config.maxSubagentsPerTurn) {
        throw new ToolError(`This turn has started its ${config.maxSubagentsPerTurn} sub-agents, the most one turn may; do the rest without one, or in the next turn.`);
      }
      spawned++;
      const subagentId = newId('sub');
      const childId = `${sessionId.slice(0, 64)}.${task.agentId}-${subagentId.slice(4, 16)}`;
      const child = this.env.SESSIONS.getByName(sessionObjectName(userOfObjectName(this.ctx.id.name), childId)) as unknown as SessionRpc;
      const started = await child.runSubagent({ sessionId: childId, task: task.task, model, rules });
      if (!started.ok) throw new ToolError(`The sub-agent could not start: ${started.body.error.message}`);
      let turnId: string | undefined;
      const cancel = () => {
        if (turnId) void child.cancelTurn(turnId).catch(() => {});
      };
      task.signal.addEventListener('abort', cancel, { once: true });
      const outcome = { subagentId, sessionId: childId, text: '', stopReason: 'error' };
      try {
        for await (const event of eventLines(started.body)) {
          if (event.type === 'turn-start') {
            turnId = event.turnId;
            // The session exists now: the user may open it.
            if (task.exposeToUser) report({ kind: 'exposed', subagentId, agentId: task.agentId, sessionId: childId, label: task.agentId });
          }
          if (event.type === 'assistant-message') outcome.text = assistantText(event.message);
          if (event.type === 'turn-stop') outcome.stopReason = event.stopReason;
          report({ kind: 'event', source: `main/${task.agentId}`, sessionId: childId, event });
        }
      } finally {
        task.signal.removeEventListener('abort', cancel);
      }
      return outcome;
    };
  }

  /** After a turn: answers staged on a socket while it ran may complete the set; a new session gets its title. */
  private afterTurn(args: LaunchArgs, outcome: TurnOutcome, model: ModelHandle, config: Config): void {
    this.door.resumeIfAnswered(args.sessionId, args.socket?.requestId ?? null).catch((error) => {
      if (!(error instanceof ApiError)) console.error('socket resume failed', error);
    });
    if (config.titles && outcome.stopReason === 'end_turn') void this.title(args.sessionId, model);
  }

  /**
   * Names the conversation after its first exchange (seed 003's `conversation_title_update`), in a
   * side call that holds no lock: the next turn may start meanwhile. Its usage counts for the session.
   */
  private async title(sessionId: string, model: ModelHandle): Promise<void> {
    if (this.titling || this.titleAttempts >= MAX_TITLE_ATTEMPTS || this.store.title() !== undefined) return;
    this.titling = true;
    this.titleAttempts++;
    // A timer of our own, cleared when the call ends: a pending timer would keep the object from
    // hibernating (as `AbortSignal.timeout` would, for its whole 30 s).
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), TITLE_TIMEOUT_MS);
    try {
      const signal = AbortSignal.any([this.sideWork.signal, timeout.signal]);
      const result = await makeTitle(model, this.store.firstMessages(10), signal);
      if (!this.store.exists()) return; // deleted meanwhile
      this.store.addUsage(result.usage);
      if (!result.ok) return console.warn('no title', sessionId, result.error.code);
      this.store.setTitle(result.title);
      this.broadcast({ type: 'conversation_title_update', conversation_id: sessionId, title: result.title });
    } finally {
      clearTimeout(timer);
      this.titling = false;
    }
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
  async followTurn(turnId: string, after: number, mode: SseMode | undefined): Promise<Result<{ body: ReadableStream<Uint8Array> }>> {
    return guard(async () => {
      const turn = this.requireTurn(turnId);
      const started = await this.follow(turn, mode ?? storedSseMode(turn.mode), after).result();
      if (started.kind !== 'sse') throw new Error('a stream follower gave no stream');
      return { body: started.body };
    });
  }

  /** Stops the running turn: the abort reaches the model call and running tools; answers once it ended. */
  async cancelTurn(turnId: string): Promise<Result<{ turn: CancelledTurn }>> {
    return guard(async () => {
      const turn = this.requireTurn(turnId);
      if (this.running?.turnId !== turnId) {
        throw new ApiError(409, 'turn_not_running', `The turn ${turnId} is not running (it is ${turn.status}).`, { details: { status: turn.status } });
      }
      await this.stopRunning();
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
      this.sideWork.abort();
      this.sideWork = new AbortController();
      await this.deleteAlarm();
      await this.ctx.storage.deleteAll();
      this.store.forget();
      // The session is gone: its sockets are told so and closed.
      for (const socket of this.ctx.getWebSockets()) {
        this.send(socket, { type: 'user_disconnect' });
        closeQuietly(socket, 1000, 'The session was deleted.');
      }
      this.socketsOpen = false;
      return { deleted: true as const };
    });
  }

  // --- the chat socket (seed 003) ---------------------------------------------------------------

  /** The upgrade, authenticated by the Worker, which names the session and user in headers. */
  override async fetch(request: Request): Promise<Response> {
    const sessionId = request.headers.get(SOCKET_SESSION_HEADER);
    const userId = request.headers.get(SOCKET_USER_HEADER);
    if (request.headers.get('upgrade')?.toLowerCase() !== 'websocket' || !sessionId || !userId) {
      return new Response('The session object only takes WebSocket upgrades from the Worker.', { status: 400 });
    }
    const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    if (this.ctx.getWebSockets().length >= MAX_SOCKETS) {
      server.accept();
      this.send(server, errorFrame('too_many_sockets', `A session takes at most ${MAX_SOCKETS} sockets at once.`, null));
      server.close(1013, 'Too many sockets on this session; close one and try again.');
      return new Response(null, { status: 101, webSocket: client });
    }
    // Hibernation: the runtime holds the socket; this object may leave memory while it is idle.
    this.ctx.acceptWebSocket(server);
    this.socketsOpen = true;
    const expiresAt = Number(request.headers.get(SOCKET_EXPIRES_HEADER) ?? NaN);
    const attachment: SocketAttachment = { sessionId, userId, ...(Number.isFinite(expiresAt) ? { expiresAt } : {}) };
    server.serializeAttachment(attachment);
    return new Response(null, { status: 101, webSocket: client });
  }

  override async webSocketMessage(socket: WebSocket, message: string | ArrayBuffer): Promise<void> {
    await this.door.handle(socket, message, socket.deserializeAttachment() as SocketAttachment);
  }

  override async webSocketClose(socket: WebSocket, code: number, reason: string): Promise<void> {
    // Completes the closing handshake the client began.
    closeQuietly(socket, code === 1005 || code === 1006 ? 1000 : code, reason);
    this.recountSockets(socket);
  }

  override async webSocketError(socket: WebSocket, error: unknown): Promise<void> {
    console.warn('socket error', error);
    closeQuietly(socket, 1011, 'Socket error.');
    this.recountSockets(socket);
  }

  private recountSockets(closed: WebSocket): void {
    this.socketsOpen = this.ctx.getWebSockets().some((socket) => socket !== closed && socket.readyState === WebSocket.OPEN);
  }

  private async stopRunning(): Promise<void> {
    const running = this.running;
    if (!running) return;
    running.controller.abort();
    await running.done;
  }

  private send(socket: WebSocket, frame: ServerFrame): void {
    try {
      socket.send(JSON.stringify(frame));
    } catch {
      // The socket is closing; its client reads what it missed from the history.
    }
  }

  /** The frames to every socket of the session, which are looked up once for all of them. */
  private broadcast(...frames: ServerFrame[]): void {
    if (frames.length === 0) return;
    const sockets = this.ctx.getWebSockets();
    if (sockets.length === 0) return;
    const texts = frames.map((frame) => JSON.stringify(frame));
    for (const socket of sockets) {
      try {
        for (const text of texts) socket.send(text);
      } catch {
        // As in `send`.
      }
    }
  }

  override async alarm(): Promise<void> {
    this.alarmAt = undefined; // it fired
    if (!this.running) this.closeInterruptedTurns();
    await this.scheduleAlarm();
  }

  /**
   * A follower for a turn: everything logged so far, then the live events if the turn runs. Read
   * and attach happen with no await between them, so nothing is missed or delivered twice.
   */
  private follow(turn: TurnRow, mode: StreamMode, after: number): Follower {
    if (turn.eventsPruned) throw new ApiError(410, 'events_expired', `The events of turn ${turn.turnId} are no longer kept.`);
    const running = this.running?.turnId === turn.turnId ? this.running : undefined;
    if (running && running.output.size >= MAX_FOLLOWERS) {
      throw new ApiError(429, 'too_many_followers', `This turn has ${MAX_FOLLOWERS} followers already; close one, or follow it after it ends.`);
    }
    const follower = createFollower(mode, after);
    const logged: LoggedEvent[] = running ? running.output.log.read() : readStoredEvents(this.turns, turn.turnId);
    for (const entry of logged) follower.deliver(entry);
    if (running) running.output.add(follower);
    else follower.close();
    return follower;
  }

  /** Keeps a running turn awake; otherwise prunes, and wakes when the next event log expires. */
  private async scheduleAlarm(): Promise<void> {
    if (this.running) return this.setAlarm(Date.now() + KEEPALIVE_MS);
    const nextEnd = this.turns.prune(Date.now() - EVENT_LOG_RETENTION_MS, EVENT_LOG_MAX_TURNS);
    if (nextEnd === undefined) return this.deleteAlarm();
    return this.setAlarm(nextEnd + EVENT_LOG_RETENTION_MS);
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

/** The internal events of a sub-agent's stream: one JSON line each (written by `eventsFollower`). */
async function* eventLines(body: ReadableStream<Uint8Array>): AsyncGenerator<AgentEvent> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += value;
    const lines = buffer.split('\n');
    buffer = lines.pop() ?? '';
    for (const line of lines) if (line.trim() !== '') yield JSON.parse(line) as AgentEvent;
  }
}

/** The mode a turn is followed in by default: the one it was started in, or `delta` for a JSON turn. */
function storedSseMode(mode: string): SseMode {
  const parsed = sseModeSchema.safeParse(mode);
  return parsed.success ? parsed.data : 'delta';
}

function closeQuietly(socket: WebSocket, code: number, reason: string): void {
  try {
    socket.close(code, reason);
  } catch {
    // Already closed.
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
