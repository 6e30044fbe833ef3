/**
 * How a session object's parts are put together (docs/architecture.md): the stores, the socket hub
 * and door, the turn runner with what it needs of the session, the queue, titles, housekeeping (and
 * the jobs its alarm runs), the link to the user's object, the webhooks and the schedules. The object itself (`session-object.ts`) keeps the RPC surface only.
 */
import type { TurnOutcome } from '../agent/run-turn';
import { readConfig, type Config } from '../config';
import type { Env } from '../env';
import { ApiError } from '../lib/errors';
import type { ModelHandle } from '../providers/types';
import { admit as admitRequest } from '../users/admission';
import { ownerOfObjectName, sessionObject, userObject } from '../users/owner';
import { quotaError } from '../users/quota';
import { eraseForUser } from './erasure';
import { Housekeeping } from './housekeeping';
import { closeCutTurns } from './recovery';
import { SocketDoor } from './socket-door';
import { closeQuietly, SocketHub } from './socket-hub';
import { Outbox } from './store/outbox';
import { openStores } from './store/stores';
import { subagentRunner, type ChildSession } from './subagents';
import { Titles } from './titles';
import { toolsForTurn } from './toolsets';
import { TurnQueue } from './turn-queue';
import type { Door } from './door';
import { TurnRunner } from './turn-runner';
import { admit, type Session } from './turns-door';
import { UserLink } from './user-link';
import { Schedules } from './schedules';
import { TaskEnd } from './task-end';
import { Webhooks } from './webhooks';
import { emptyUsage } from '../agent/usage';

export type SessionParts = Session & {
  hub: SocketHub;
  door: SocketDoor;
  titles: Titles;
  housekeeping: Housekeeping;
  users: UserLink;
  outbox: Outbox;
  webhooks: Webhooks;
  schedules: Schedules;
};

export function assemble(ctx: DurableObjectState, env: Env): SessionParts {
  const owner = ownerOfObjectName(ctx.id.name);
  const stores = openStores(ctx.storage);
  const outbox = new Outbox(ctx.storage);
  stores.meta.onRollback(() => outbox.rolledBack());
  const hub = new SocketHub(ctx);
  const parts = { stores, hub, outbox } as SessionParts;
  const taskEnd = new TaskEnd();
  const afterThisTask = () => taskEnd.wait();
  const users = new UserLink({
    afterThisTask: (run) => taskEnd.join(run),
    stores,
    outbox,
    user: () => userObject(env, owner),
    settings: () => readConfig(env).users,
    wake: (at) => parts.housekeeping.wake(at),
    alarmComingBy: (at) => parts.housekeeping.alarmComingBy(at),
    running: () => parts.runner.runningTurnId !== undefined,
    erase: async () => void (await eraseForUser(parts)),
  });
  const titles = new Titles(stores, (event) => hub.tell(event), users);
  const wake = (at: number) => parts.housekeeping.wake(at);
  const webhooks = new Webhooks({ deliveries: stores.deliveries, settings: () => readConfig(env).webhook, userId: () => owner.userId, scheduleOf: (turnId) => stores.turns.scheduleOf(turnId), wake });
  const schedules = new Schedules({ storage: ctx.storage, stores, queue: { enqueue: (...args) => queue.enqueue(...args), drain: () => queue.drain() }, wake });
  const housekeeping = new Housekeeping(ctx.storage, stores, () => runner.runningTurnId !== undefined, () => void queue.drain(), [
    { runDue: () => users.sendNow(), waiting: () => outbox.size() > 0 || outbox.unswept() },
    { runDue: () => webhooks.sendDue(), waiting: () => stores.deliveries.nextDue() !== undefined },
    { runDue: () => schedules.fireDue(), waiting: () => schedules.nextDue() !== undefined },
  ]);
  const runner: TurnRunner = new TurnRunner({
    stores,
    bindings: env.AI ? { ai: env.AI } : {},
    config: () => readConfig(env),
    tools: (subagent) => toolsForTurn(readConfig(env), subagent),
    sessionListener: (door, config) => hub.turnListener(door, config.toolVisibility),
    subagents: (sessionId, model, rules, config) =>
      subagentRunner({ sessionId, owner, model, rules, config, child: (childId) => sessionObject(env, owner, childId) as unknown as ChildSession, today: () => users.totals() }),
    admitted: async () => {
      await users.prepare();
      const refusal = users.refusal();
      if (refusal) throw quotaError(refusal);
    },
    afterThisTask,
    quota: () => users.quotaError(),
    spent: (call) => users.spent(call),
    started: (sessionId, followed) => {
      housekeeping.turnStarted(followed);
      users.started(sessionId);
    },
    settling: async (sessionId) => {
      users.ended(sessionId);
      await users.delivered();
    },
    ended: (door, turnId, outcome, model, config) => afterTurn(parts, door, turnId, outcome, model, config),
    userId: () => owner.userId,
  });
  const queue = new TurnQueue({
    stores,
    runner,
    maxQueued: () => readConfig(env).maxQueuedTurns,
    keepAwake: () => housekeeping.keepAwake(),
    endedUnrun: (turnId, error) => webhooks.turnEnded({ sessionId: stores.meta.sessionId() ?? '', turnId, stopReason: 'error', error, usage: emptyUsage() }),
  });
  const door = new SocketDoor({
    env,
    stores,
    isRunning: () => runner.runningTurnId !== undefined,
    settled: () => runner.settled(),
    takeRate: async () => void (await admitRequest(env, owner, { callsModel: false })),
    admit: (request, door) => admit(parts, request, door, undefined, false),
    stop: () => runner.stop(),
    send: (socket, frame) => hub.send(socket, frame),
    close: (socket, code, reason) => closeQuietly(socket, code, reason),
    broadcast: (frame) => hub.broadcast(frame),
  });
  return Object.assign(parts, { runner, queue, door, titles, housekeeping, users, webhooks, schedules });
}

/**
 * What a fresh instance does before anything else: it learns the alarm a former one set, brings the
 * schema up to date, and closes the turns storage calls running (cut short: no turn runs in memory).
 * Their user's list, which may show them running, learns that they ended; the webhook, that they failed.
 */
export async function wakeUp(parts: SessionParts, storage: DurableObjectStorage): Promise<void> {
  parts.housekeeping.knownAlarm(await storage.getAlarm());
  const { stores, users, webhooks } = parts;
  stores.meta.migrate();
  const sessionId = stores.meta.sessionId() ?? '';
  const cut = closeCutTurns(stores);
  for (const { turnId, error } of cut) webhooks.turnEnded({ sessionId, turnId, stopReason: 'error', error, usage: emptyUsage() });
  if (cut.length > 0) users.changed(sessionId, false);
}

/**
 * After a turn: answers staged on a socket while it ran may complete the set; a new session gets
 * its title; the queue goes on (steered messages the turn did not take wait there already).
 */
function afterTurn(parts: SessionParts, door: Door, turnId: string, outcome: TurnOutcome | undefined, model: ModelHandle, config: Config): void {
  parts.housekeeping.turnEnded();
  const stopReason = outcome?.stopReason ?? 'error';
  parts.webhooks.turnEnded({
    sessionId: door.sessionId,
    turnId,
    stopReason,
    usage: outcome?.usage ?? emptyUsage(),
    ...(outcome ? (outcome.error ? { error: outcome.error } : {}) : { error: { code: 'internal_error', message: 'The server failed during the turn.' } }),
    ...(stopReason === 'tool_use' ? { pendingToolCalls: parts.stores.history.pendingCalls() } : {}),
  });
  if (outcome) {
    parts.door.resumeIfAnswered(door.sessionId, door.socket?.requestId ?? null).catch((error) => {
      if (!(error instanceof ApiError)) console.error('socket resume failed', error);
    });
    if (config.titles && outcome.stopReason === 'end_turn') void parts.titles.name(door.sessionId, model);
  }
  void parts.queue.drain();
}
