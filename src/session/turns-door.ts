/**
 * What a door does with a turn while another runs (`ifBusy`; on an idle session every policy is a
 * plain turn), the same for every door, each door answering in its own words:
 * - `reject`: `409 session_busy`, naming the running turn;
 * - `enqueue`: the turn waits its turn (`turn-queue.ts`); the turns API answers `202 {turnId,
 *   status: "queued", position}`, a streaming door streams it once it runs;
 * - `interrupt`: the running turn is cancelled as by its cancel route, then this one runs at once,
 *   ahead of the queue;
 * - `steer`: its user messages go to the running turn, which takes them at its next step boundary;
 *   the turns API answers `202 {turnId: <the running turn>, status: "steered"}`, a streaming door
 *   follows the running turn from there.
 * And the turns API's own door (`POST /sessions/{id}/turns`): a retry with an `Idempotency-Key` runs
 * nothing again, and an enqueued request answers its `202` again.
 */
import { isUserMessage, type UserMessage } from '../api/content';
import { ApiError } from '../lib/errors';
import type { AcceptedTurn, CancelledTurn } from '../api/responses';
import type { TurnView } from '../api/background-responses';
import type { IfBusy, TurnRequest } from '../api/turn-request';
import { checkParent } from './branching';
import { createFollower, type FinishBody, type Follower, type FollowFrom, type StartedTurn } from './followers';
import { identify, identifyTurnMessages } from './history-views';
import type { SessionStores } from './store/stores';
import { statusOf, type TurnRow } from './store/turns';
import type { Queued, TurnQueue } from './turn-queue';
import type { Door } from './door';
import { IDEMPOTENCY_WINDOW_MS, type TurnRunner } from './turn-runner';

/** A cancel's answer (`cancelledTurnSchema`), for the session's callers. */
export type { CancelledTurn };

export type Session = { stores: SessionStores; runner: TurnRunner; queue: TurnQueue };
type Steered = Extract<AcceptedTurn, { status: 'steered' }>;

/** What became of a door's request; `follower`: what the door streams, where it streams anything. */
export type Admitted =
  | { kind: 'started'; follower?: Follower; turnId: string }
  | { kind: 'replay'; turn: TurnRow }
  | { kind: 'queued'; body: Queued; follower?: Follower }
  | { kind: 'steered'; body: Steered; follower?: Follower };

/**
 * The turn a door's request started or queued, which the Worker cancels if its client leaves (AG-UI,
 * MCP's 2026-07-28 revision); none for a running turn the request only joined.
 */
export function ownTurnId(admitted: Admitted): string {
  return admitted.kind === 'started' ? admitted.turnId : admitted.kind === 'queued' ? admitted.body.turnId : '';
}

/** A door's follower, from a point of its turn (or for a turn that waits); none for the socket, whose turns every socket hears. */
export type MakeFollower = ((from: FollowFrom) => Follower) | undefined;

/**
 * Admits a door's request under its policy. `request` may be read from the session's state (an
 * AG-UI run); `streams`: whether the door streams a queued or steered turn (all but the turns API).
 */
export async function admit(
  session: Session,
  request: TurnRequest | (() => TurnRequest | undefined),
  door: Omit<Door, 'follower'> & { ifBusy: IfBusy },
  makeFollower: MakeFollower,
  streams: boolean,
): Promise<Admitted> {
  const { runner, queue, stores } = session;
  // A running turn's opening stored first (a task at most: docs/decisions.md, 43), as for every read:
  // a request steered in, queued or joined finds the turn it joins stored, and its key.
  await runner.settled();
  const busy = runner.runningTurnId !== undefined;
  if (busy && (door.ifBusy === 'enqueue' || door.ifBusy === 'steer')) {
    const admitted = typeof request === 'function' ? request() : request;
    // Checked now, so that a turn that waits was a turn that could run.
    if (admitted?.parentId !== undefined) checkParent(stores.history, admitted.parentId, admitted.messages.length === 0);
    if (admitted && door.ifBusy === 'enqueue') {
      const body = queue.enqueue(admitted, door);
      return { kind: 'queued', body, ...(streams && makeFollower ? { follower: queue.follow(body.turnId, makeFollower({ queued: true })) } : {}) };
    }
    if (admitted) {
      const after = runner.runningLastSeq;
      // Only user messages may be steered (the schema says so for the turns API; other doors bring only them).
      const messages = admitted.messages.filter(isUserMessage);
      if (messages.length === 0) throw new ApiError(400, 'nothing_to_steer', 'Only user messages can be steered into a running turn, and this request brings none.');
      // Stored as a queued turn first: if the running turn cannot take them, or the object is evicted
      // before it does, they run as a turn of their own; nothing steered is lost.
      const queued = queue.enqueue({ messages, stream: 'none', ifBusy: 'reject' }, door, false);
      const turnId = runner.steer(messages, queued.turnId);
      const turn = turnId === undefined ? undefined : stores.turns.turn(turnId);
      if (turnId && turn) return { kind: 'steered', body: { turnId, status: 'steered' }, ...(streams && makeFollower ? { follower: runner.attach(turn, makeFollower({ after })) } : {}) };
    }
  }
  if (busy && door.ifBusy === 'interrupt') {
    return queue.hold(async () => {
      await runner.stop();
      return start(runner, request, door, makeFollower);
    });
  }
  return start(runner, request, door, makeFollower);
}

/** What a streaming door streams of what it admitted. */
export function followerOf(admitted: Admitted): Follower {
  if (admitted.kind === 'replay' || !admitted.follower) throw new Error('a streaming door was given no follower');
  return admitted.follower;
}

async function start(runner: TurnRunner, request: TurnRequest | (() => TurnRequest | undefined), door: Omit<Door, 'follower'>, makeFollower: MakeFollower): Promise<Admitted> {
  const follower = makeFollower?.({});
  const launched = await runner.launch(request, { ...door, ...(follower ? { follower } : {}) });
  if ('replay' in launched) return { kind: 'replay', turn: launched.replay };
  return { kind: 'started', ...(follower ? { follower } : {}), turnId: 'turnId' in launched ? launched.turnId : '' };
}

/** `background`: `Prefer: respond-async`; the turn runs without its client, answered `202` at once (docs/background.md). */
export type StartTurnArgs = { sessionId: string; request: TurnRequest; model: string; idempotency?: { key: string; hash: string }; background?: boolean };
export type TurnStarted = (StartedTurn | { kind: 'accepted'; body: AcceptedTurn }) & { replayed: boolean };

/** The turns API's door. */
export async function startTurnsApiTurn(args: StartTurnArgs, session: Session): Promise<TurnStarted> {
  const { request, idempotency } = args;
  await session.runner.settled(); // a retry's key is looked up once the turn it names is stored
  const prior = idempotency && session.stores.turns.turnByIdempotencyKey(idempotency.key, Date.now() - IDEMPOTENCY_WINDOW_MS);
  if (prior?.enqueued && prior.requestHash === idempotency?.hash) {
    return { kind: 'accepted', body: { turnId: prior.turnId, status: 'queued', position: session.queue.position(prior.turnId) }, replayed: true };
  }
  // A retry of a turn that ran follows (or replays) it, whatever the policy says.
  const door = { sessionId: args.sessionId, model: args.model, ifBusy: prior ? ('reject' as const) : request.ifBusy, ...(idempotency ? { idempotency } : {}) };
  // A JSON answer names the messages the turn stored (their ids, parents and siblings).
  const finish: FinishBody = (body) => ({ ...body, messages: identifyTurnMessages(session.stores.history, body.turnId, body.messages) });
  if (args.background) return startInBackground(session, request, door);
  const admitted = await admit(session, request, door, ({ after }) => createFollower(request.stream, after, finish), false);
  if (admitted.kind === 'replay') return { ...(await session.runner.follow(admitted.turn, request.stream, 0, finish).result()), replayed: true };
  if (admitted.kind === 'started') return { ...(await followerOf(admitted).result()), replayed: false };
  return { kind: 'accepted', body: admitted.body, replayed: false };
}

/** A turn with no client: nobody follows it; the answer is its id and state. */
async function startInBackground(session: Session, request: TurnRequest, door: Omit<Door, 'follower'> & { ifBusy: IfBusy }): Promise<TurnStarted> {
  const admitted = await admit(session, request, door, undefined, false);
  const replayed = admitted.kind === 'replay';
  if (admitted.kind === 'queued' || admitted.kind === 'steered') return { kind: 'accepted', body: admitted.body, replayed };
  const turnId = admitted.kind === 'replay' ? admitted.turn.turnId : admitted.turnId;
  const row = session.stores.turns.turn(turnId);
  const status = row ? statusOf(row) : 'running';
  return { kind: 'accepted', body: status === 'queued' ? { turnId, status, position: session.queue.position(turnId) } : { turnId, status }, replayed };
}

/**
 * A read of one turn (`Session.getTurn`): its state, times and stop alone (`brief`), what `GET
 * .../turns/{turnId}` answers (`whole`), or that and the user's messages the turn brought (`asked`:
 * the A2A door's history of a task that waits in the queue, or whose events are no longer kept,
 * docs/a2a.md).
 */
export type TurnRead = { read: 'brief' | 'whole' | 'asked'; result: { turn: TurnView; asked?: UserMessage[] } };

export async function readTurn(session: Session, turn: TurnRow, read: TurnRead['read']): Promise<TurnRead['result']> {
  const view = await turnView(session, turn, read === 'brief');
  if (read !== 'asked') return { turn: view };
  // A queued turn's messages wait with its request; a turn that started stored them with its history.
  const messages = view.status === 'queued' ? (session.stores.queue.request(turn.turnId)?.messages ?? []) : session.stores.history.turnRows(turn.turnId).map(({ message }) => message);
  return { turn: view, asked: messages.filter(isUserMessage) };
}

/**
 * `GET .../turns/{turnId}`: its state, and once it ended, what `stream: "none"` would have answered
 * (`brief`: its state, times and stop alone).
 */
export async function turnView(session: Session, turn: TurnRow, brief = false): Promise<TurnView> {
  const status = statusOf(turn);
  if (status === 'queued') return { turnId: turn.turnId, status };
  const times = { startedAt: new Date(turn.startedAt).toISOString(), ...(turn.endedAt === null ? {} : { endedAt: new Date(turn.endedAt).toISOString() }) };
  if (status === 'running') return { turnId: turn.turnId, status, ...times };
  // `brief`: its state and how it stopped, from its row, without reading its events again.
  if (brief) return { turnId: turn.turnId, status, ...times, ...(turn.stopReason ? { stopReason: turn.stopReason } : {}) } as TurnView;
  const finish: FinishBody = (body) => ({ ...body, messages: identifyTurnMessages(session.stores.history, body.turnId, body.messages) });
  if (!turn.eventsPruned) {
    const answered = await session.runner.follow(turn, 'none', 0, finish).result();
    // The encoder's body is the turns API's JSON answer, whose schema (`turnBodySchema`) the tests hold it to.
    if (answered.kind === 'json') {
      const { turnId, ...body } = answered.body;
      return { turnId, status, ...times, ...body } as TurnView;
    }
  }
  // Its events are no longer kept: what it stored, and how it stopped.
  const messages = identify(session.stores.history, session.stores.history.turnRows(turn.turnId)).filter((message) => message.role === 'assistant' || message.role === 'tool');
  return { turnId: turn.turnId, status, ...times, ...(turn.stopReason ? { stopReason: turn.stopReason } : {}), messages } as TurnView;
}

/** A cancel (`POST .../turns/{turnId}/cancel`): a queued turn leaves the queue; the running one stops, and is answered once it has. */
export async function cancelTurn({ queue, runner, stores }: Session, turn: TurnRow): Promise<CancelledTurn> {
  const { turnId } = turn;
  if (turn.status === 'queued' && queue.cancel(turnId)) return { turnId, status: 'cancelled', stopReason: 'error' };
  if (runner.runningTurnId !== turnId) {
    // Queued and not cancelled: steered messages the running turn has taken (they may be on their way to the model).
    const taken = turn.status === 'queued' ? ': its messages were steered into the running turn, which has taken them' : '';
    throw new ApiError(409, 'turn_not_running', `The turn ${turnId} is not running (it is ${turn.status}${taken}).`, { details: { status: turn.status } });
  }
  await runner.stop();
  const ended = stores.turns.turn(turnId);
  return { turnId, status: ended ? statusOf(ended) : 'cancelled', ...(ended?.stopReason ? { stopReason: ended.stopReason } : {}) };
}
