/**
 * The one path from an admitted request to a running turn, for every door (the turns API, the
 * Harness, AG-UI, the chat socket, sub-agents): `launch(request, door)`. A door differs only in how
 * it reads its request and which follower listens; the launcher does the rest, the same for all:
 * the tools, the checks against the session, the model, the recorder, the event log, the
 * followers, and the cleanup, whatever happens (src/session/turn-output.ts). It also follows,
 * cancels and, after an eviction, closes the turns it runs.
 */
import type { ModelCallUsage, TurnError } from '../agent/events';
import { DEFAULT_RETRY_POLICY } from '../agent/retry-policy';
import { runTurn, type TurnOutcome } from '../agent/run-turn';
import type { UserMessage } from '../api/content';
import { checkToolNames } from '../api/tool-names';
import type { StreamMode, TurnRequest } from '../api/turn-request';
import type { Config } from '../config';
import { ApiError } from '../lib/errors';
import { newId } from '../lib/ids';
import { resolveModel, type ProviderBindings } from '../providers/registry';
import type { ModelHandle } from '../providers/types';
import type { PermissionRule } from '../tools/permission-rules';
import type { Toolset } from '../tools/registry';
import type { SubagentRunner } from '../tools/types';
import { errorStop, readStoredEvents, TurnEventLog, type LoggedEvent } from './event-log';
import { checkParent } from './branching';
import type { Door, Launched } from './door';
import { createFollower, MAX_FOLLOWERS, type FinishBody, type Follower, type Listener } from './followers';
import type { SessionStores } from './store/stores';
import type { TurnRow } from './store/turns';
import { logTurn, turnInput } from './turn-input';
import { openTurn, storeOpening } from './turn-opening';
import { SteeringInbox } from './steering';
import { createTurnRecorder } from './turn-recorder';
import { attempt, TurnOutput } from './turn-output';
import { validateTurn } from './validate-turn';

/** How long an Idempotency-Key is remembered. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** What the runner needs from the session object. */
export interface RunnerHost {
  readonly stores: SessionStores;
  readonly bindings: ProviderBindings;
  config(): Config;
  /** Resolves in the object's next task, shared with all who wait for it (`task-end.ts`). */
  afterThisTask(): Promise<void>;
  /** The server tools for a turn (MCP lists may need a fetch); closed when the turn ends. */
  tools(subagent: boolean): Promise<Toolset>;
  /** The listener every turn gets, whichever door started it (the session's sockets). */
  sessionListener(door: Door, config: Config): Listener;
  subagents(sessionId: string, model: string, rules: PermissionRule[], config: Config): SubagentRunner;
  /**
   * Before a turn: whether its user may call a model now (the daily quotas, docs/users.md), else a
   * `429 quota_exceeded`; during it, the same check before each model call, and each call's usage.
   */
  admitted(): Promise<void>;
  quota(): TurnError | undefined;
  spent(call: ModelCallUsage): void;
  /** A turn started (keep the object awake, tell the user's list); `followed`: false only for one nobody follows as it starts (respond-async). */
  started(sessionId: string, followed: boolean): void;
  /** The turn's end is about to be told: the user's list learns it first (read your writes); then it ended. */
  settling(sessionId: string): Promise<void>;
  ended(door: Door, turnId: string, outcome: TurnOutcome | undefined, model: ModelHandle, config: Config): void;
  userId(): string;
}

type RunningTurn = {
  turnId: string;
  controller: AbortController;
  /** Settles once the turn has ended and been cleaned up; never rejects. */
  done: Promise<void>;
  /** Settles once what the turn opens with is stored (`turn-opening.ts`). */
  opened: Promise<void>;
  output: TurnOutput;
  /** User messages steered in (ifBusy "steer"), for the loop's next step boundary. */
  inbox: SteeringInbox;
};

export class TurnRunner {
  private running: RunningTurn | undefined;

  constructor(private readonly host: RunnerHost) {}

  get runningTurnId(): string | undefined {
    return this.running?.turnId;
  }

  /**
   * Once what the running turn opens with is stored (at once when none runs): a read that names it,
   * or that needs a new session's first turn to have made it, sees it stored (docs/decisions.md, 43).
   */
  async settled(): Promise<void> {
    await this.running?.opened.catch(() => undefined);
  }

  /**
   * Hands user messages, already stored as the queued turn `queuedTurnId`, to the running turn
   * (ifBusy "steer"); the turn's id, or undefined when none runs.
   */
  steer(messages: UserMessage[], queuedTurnId: string): string | undefined {
    if (!this.running) return undefined;
    this.running.inbox.add(messages, queuedTurnId);
    return this.running.turnId;
  }

  /** A steered batch cancelled before the loop took it (its queued turn was cancelled): the turn never sees it. False once taken. */
  unsteer(queuedTurnId: string): boolean {
    return this.running?.inbox.withdraw(queuedTurnId) ?? true;
  }

  /**
   * Starts a turn. `request` may be read from the session's state once the tools are known (an
   * AG-UI run, a socket's staged messages): from that read, through the checks, to the lock nothing
   * awaits, so no other request can slip in between (nor two retries with one key both start a
   * turn). A refusal throws `ApiError`; a function that returns undefined starts nothing.
   */
  async launch(request: TurnRequest | (() => TurnRequest | undefined), door: Door): Promise<Launched> {
    await this.host.admitted();
    const tools = await this.host.tools(door.subagent !== undefined);
    // Checked against a running turn once its opening is stored: a retry with its key then follows it.
    await this.settled();
    let started: { turnId: string; opened: Promise<void> } | undefined;
    try {
      const prior = door.idempotency && this.host.stores.turns.turnByIdempotencyKey(door.idempotency.key, Date.now() - IDEMPOTENCY_WINDOW_MS);
      if (prior && prior.requestHash !== door.idempotency?.hash) {
        throw new ApiError(422, 'idempotency_key_reused', 'This Idempotency-Key was used with a different request body. Use a new key for a new request.');
      }
      const admitted = prior ? undefined : typeof request === 'function' ? request() : request;
      if (admitted) started = this.start(admitted, door, tools);
      else void tools.close();
      if (!started) return prior ? { replay: prior } : { nothing: true };
    } catch (error) {
      void tools.close();
      throw error;
    }
    await started.opened; // the turn's id leaves once its opening is stored (`turn-opening.ts`)
    return { turnId: started.turnId };
  }

  private start(request: TurnRequest, door: Door, tools: Toolset): { turnId: string; opened: Promise<void> } {
    const { stores } = this.host;
    const config = this.host.config();
    // A turn from another message (`parentId`) leaves the calls owed on this branch: they are owed there.
    const pending = request.parentId === undefined && stores.meta.exists() ? stores.history.pendingCalls() : [];
    const { answers, newMessages } = validateTurn(request, pending, this.running?.turnId);
    const parent = request.parentId === undefined ? undefined : checkParent(stores.history, request.parentId, request.messages.length === 0);
    checkToolNames(request.tools ?? [], tools.registry.names());
    const model = resolveModel(door.model, config, this.host.bindings);

    const turnId = door.queued?.turnId ?? newId('turn');
    // A plain turn, or one with a client's results, stores its opening after its first model request
    // (`turn-opening.ts`); not a queued one, which left the queue in a write of this task.
    const late = answers.every(({ answer }) => answer.kind === 'result') && parent === undefined && !door.subagent && !door.queued;
    const { sessionId, subagent, idempotency } = door;
    const opening = { sessionId, turnId, model: model.id, mode: request.stream, parent, answers, queued: door.queued !== undefined, ...(subagent ? { subagent } : {}), ...(idempotency ? { idempotency } : {}) };
    const { opening: open, opened } = openTurn(() => storeOpening(stores, opening), late, () => this.host.afterThisTask());
    const rules = stores.side.rules();
    const output = new TurnOutput(createTurnRecorder(stores, turnId), new TurnEventLog(stores.turns, turnId), () => this.host.settling(door.sessionId));
    output.add(this.host.sessionListener(door, config));
    if (door.follower) output.add(door.follower);
    for (const follower of door.queued?.followers() ?? []) output.add(follower);
    const inbox = new SteeringInbox(stores);
    const controller = new AbortController();
    const started = Date.now();
    const tokenBudget = config.turnTokenBudget(model.id);

    const done = runTurn(turnInput(stores, turnId, answers, newMessages, request), {
      model,
      tools: tools.registry,
      toolContext: { now: () => new Date(), notes: stores.side, subagents: this.host.subagents(door.sessionId, model.id, rules, config) },
      emit: output.emit,
      signal: controller.signal,
      systemPrompt: config.systemPrompt,
      maxIterations: config.maxIterations,
      toolTimeoutMs: config.toolTimeoutMs,
      toolConcurrency: config.toolConcurrency,
      retry: { ...DEFAULT_RETRY_POLICY, maxRetries: config.upstream.maxRetries },
      context: config.context,
      isToolCallIdUsed: (id) => stores.history.hasToolCallId(id),
      newId,
      now: Date.now,
      ...(door.sampling ? { sampling: door.sampling } : {}),
      rules,
      ...(open ? { opening: open } : {}),
      ...(tokenBudget !== undefined ? { tokenBudget } : {}),
      steering: inbox,
      spent: (call) => this.host.spent(call),
      quota: () => this.host.quota(),
      requestSent: () => this.host.afterThisTask(),
    })
      .catch((cause: unknown) => {
        console.error('turn crashed', turnId, cause);
        return undefined;
      })
      .then((outcome) => this.end({ door, turnId, model, config, output, outcome, started, tools }))
      .catch((error: unknown) => console.error('ending the turn failed', turnId, error));
    this.running = { turnId, controller, done, opened, output, inbox };
    this.host.started(door.sessionId, door.follower !== undefined || door.socket !== undefined || door.queued !== undefined);
    return { turnId, opened };
  }

  /**
   * After the loop, however it ended (a crash included): the tools closed, the stop told if the loop
   * could not tell it, the log written, the followers closed, and the session free for the next
   * turn. Cleanup never depends on a step before it succeeding: `running` is cleared in `finally`.
   */
  private async end(ended: {
    door: Door;
    turnId: string;
    model: ModelHandle;
    config: Config;
    output: TurnOutput;
    outcome: TurnOutcome | undefined;
    started: number;
    tools: Toolset;
  }): Promise<void> {
    const { door, turnId, model, outcome, output, tools } = ended;
    try {
      await tools.close().catch((error: unknown) => console.error('closing the tools failed', error));
      // The loop's stop reaches the followers once the user's list knows; a crash's is told below, after the same.
      if (!output.stopSeen) await this.host.settling(door.sessionId).catch((error: unknown) => console.error('telling the user’s list failed', error));
      await output.told();
      const error = outcome?.error ?? { code: 'internal_error', message: 'The server failed during the turn.' };
      output.end(
        errorStop(turnId, error, this.host.stores.meta.calibration(), outcome && { usage: outcome.usage, modelCalls: outcome.modelCalls }),
        (stop) => this.host.stores.turns.endTurn(turnId, error.code === 'cancelled' ? 'cancelled' : 'finished', 'error', error.code, stop.at),
      );
      attempt('logging the turn', () => logTurn({ session: door.sessionId, turn: turnId, user: this.host.userId(), model: model.id }, outcome, ended.started));
    } finally {
      this.running = undefined;
      // A branch the turn stored nothing on was never made; reads go back to the active branch.
      this.host.stores.history.branches.settle();
    }
    attempt('after the turn', () => this.host.ended(door, turnId, outcome, model, ended.config));
  }

  /** A follower of a turn in a turns API stream mode, from after event `after`. */
  follow(turn: TurnRow, mode: StreamMode, after: number, finish?: FinishBody): Follower {
    return this.attach(turn, createFollower(mode, after, finish));
  }

  /**
   * Attaches a door's follower to a turn: everything logged so far, then (`live`) the live events if
   * the turn runs. Read and attach happen with no await between them, so nothing is missed or delivered twice.
   */
  attach(turn: TurnRow, follower: Follower, live = true): Follower {
    if (turn.eventsPruned) throw new ApiError(410, 'events_expired', `The events of turn ${turn.turnId} are no longer kept.`);
    const running = this.running?.turnId === turn.turnId ? this.running : undefined;
    if (running && live && running.output.size >= MAX_FOLLOWERS) {
      throw new ApiError(429, 'too_many_followers', `This turn has ${MAX_FOLLOWERS} followers already; close one, or follow it after it ends.`);
    }
    const logged: LoggedEvent[] = running ? running.output.log.read() : readStoredEvents(this.host.stores.turns, turn.turnId);
    for (const entry of logged) follower.deliver(entry);
    if (running && live) running.output.add(follower);
    else follower.close();
    return follower;
  }

  /** The id of the running turn's last event so far: a follower from now on starts after it. */
  get runningLastSeq(): number {
    return this.running?.output.log.lastSeq ?? 0;
  }

  /** Stops the running turn, if any: the abort reaches the model call and running tools; resolves once it ended. */
  async stop(): Promise<void> {
    const running = this.running;
    if (!running) return;
    running.controller.abort();
    await running.done;
  }
}
