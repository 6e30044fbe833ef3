/**
 * A plain turn stores what it opens with a task after its first model request (docs/decisions.md,
 * 43). Every door of the session's object, called in that task, acts on the session as it is once the
 * opening is stored: no 404 for a new session's first turn, no turn named that is not stored, and no
 * erasure, fork, steered or queued request, retry with the turn's key or socket answer that goes by
 * the state before it. The table names every method of the object's class, so a door added later
 * fails here until its case is written.
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { turnRequestSchema } from '../../src/api/turn-request';
import { readConfig } from '../../src/config';
import { LOCAL_USER } from '../../src/http/auth';
import { sessionObjectName } from '../../src/http/session-stub';
import type { Session } from '../../src/session/session';
import { SessionObject } from '../../src/session/session-object';
import type { BranchCopy } from '../../src/session/forks';
import type { StartTurnArgs } from '../../src/session/turns-door';
import { fetchWorker, history, jsonTurn, newSessionId, session as sessionView, user } from '../helpers/api';
import { partsOf } from '../helpers/session-parts';
import { rowCount } from '../helpers/rows';

/** Ten chunks 150 ms apart: the turn still runs when each door is called (and is stopped after it). */
const MODEL = 'openai:script/slow';
const request = (content: string, more: Record<string, unknown> = {}) => turnRequestSchema().parse({ messages: [user(content)], stream: 'none', ...more });
const text = (body: ReadableStream<Uint8Array>) => new Response(body).text();
const busy = { ok: false, status: 409, body: { error: { code: 'session_busy' } } };

/** A copy of a branch of another session, already read, for a fork into a session in its opening. */
let copy: () => BranchCopy;
beforeAll(async () => {
  const sourceId = newSessionId('fork-source');
  await jsonTurn(sourceId, { messages: [user('hello from the source')] });
  const exported = await env.SESSIONS.getByName(sessionObjectName(LOCAL_USER, sourceId)).exportBranch(sourceId, undefined);
  if (!exported.ok) throw new Error('no copy');
  const { ok: _ok, body, ...header } = exported;
  const lines = await text(body);
  copy = () => ({ ...header, body: new Response(lines).body! });
});

/** What to check in the opening task; a check it returns runs once the turn has been stopped. */
type Case = (session: Session, id: string, turnId: string, storage: DurableObjectStorage) => Promise<void | (() => Promise<void>)>;

/**
 * Each method of the session's object, called in a new session's opening task, and what it must
 * answer; or why it reads nothing the opening writes.
 */
const doors: Record<string, Case | { exempt: string }> = {
  startTurn: async (session, id) => expect(await session.startTurn({ sessionId: id, request: request('again'), model: MODEL })).toMatchObject(busy),
  startAguiRun: async (session, id) => {
    const input = { threadId: id, runId: 'run-1', messages: [{ id: 'm-1', role: 'user' as const, content: 'again' }], tools: [], context: [], state: {}, forwardedProps: {} };
    expect(await session.startAguiRun({ sessionId: id, input, model: MODEL })).toMatchObject(busy);
  },
  startHarnessRun: async (session, id) => expect(await session.startHarnessRun({ sessionId: id, request: request('again'), model: MODEL, format: 'json' })).toMatchObject(busy),
  startEventsRun: async (session, id) => expect(await session.startEventsRun({ sessionId: id, request: request('again'), model: MODEL })).toMatchObject(busy),
  runSubagent: async (session, id) => expect(await session.runSubagent({ sessionId: id, parentSessionId: 'parent', task: 'again', model: MODEL, rules: [] })).toMatchObject(busy),
  followTurn: async (session, _id, turnId) => {
    const followed = await session.followTurn(turnId, 0, 'events');
    if (!followed.ok) throw new Error(`followTurn: ${followed.status}`);
    expect(await text(followed.body)).toContain('turn-stop');
  },
  listTurns: async (session, _id, turnId) => expect(await session.listTurns({ limit: 10 })).toMatchObject({ ok: true, turns: [{ turnId }] }),
  cancelTurn: async (session, _id, turnId) => expect(await session.cancelTurn(turnId)).toMatchObject({ ok: true, turn: { turnId } }),
  getSession: async (session, id, turnId, storage) => {
    expect(await session.getSession(id)).toMatchObject({ ok: true, session: { sessionId: id, runningTurnId: turnId } });
    expect(Number(storage.sql.exec<{ n: number }>('SELECT count(*) AS n FROM turns WHERE turn_id = ?', turnId).one().n)).toBe(1);
  },
  // The loop records the turn's user message just after its opening (after its answers' tools, when
  // it brings answers): the history may not hold it yet, but the session is there.
  getMessages: async (session) => expect(await session.getMessages({ limit: 100 })).toMatchObject({ ok: true }),
  getBranches: async (session) => expect(await session.getBranches()).toMatchObject({ ok: true }),
  activateBranch: async (session) => expect(await session.activateBranch('msg_1')).toMatchObject(busy),
  exportBranch: async (session, id) => expect(await session.exportBranch(id, undefined)).toMatchObject({ ok: false, status: 400, body: { error: { code: 'invalid_parent' } } }),
  importFork: async (session, id) => {
    // Without the wait: 201, and the turn stored after messages its model never saw.
    expect(await session.importFork(id, copy())).toMatchObject({ ok: false, status: 409, body: { error: { code: 'session_exists' } } });
    return async () => {
      const kept = await history(id);
      expect(kept[0]).toEqual(user('hello'));
      expect(JSON.stringify(kept)).not.toContain('from the source');
    };
  },
  deleteSession: async (session) => expect(await session.deleteSession()).toMatchObject(busy),
  getTurn: async (session, _id, turnId) => expect(await session.getTurn(turnId)).toMatchObject({ ok: true, turn: { turnId } }),
  getDeliveries: async (session) => expect(await session.getDeliveries()).toEqual({ ok: true, deliveries: [] }),
  // A schedule makes the session as a first turn does: both are kept, whichever writes first.
  createSchedule: async (session, id, turnId) => {
    const at = new Date(Date.now() + 3_600_000).toISOString();
    expect(await session.createSchedule(id, { messages: [{ role: 'user', content: 'later' }], at, model: MODEL })).toMatchObject({ ok: true });
    return async () => {
      expect((await sessionView(id)).body).toMatchObject({ lastTurn: { turnId, status: 'cancelled' } });
      expect(await fetchWorker(`/sessions/${id}/schedules`).then((response) => response.json())).toMatchObject({ schedules: [{ messages: [{ content: 'later' }] }] });
    };
  },
  getSchedules: async (session) => expect(await session.getSchedules()).toEqual({ ok: true, schedules: [] }),
  // Reads nothing a first turn's opening writes (a new session has no schedule either way): its
  // answer cannot tell the wait apart, and is checked as the others are.
  deleteSchedule: async (session) => expect(await session.deleteSchedule('sch_none')).toMatchObject({ ok: false, status: 404, body: { error: { code: 'schedule_not_found' } } }),
  exportForUser: async (session, id) => {
    const exported = await session.exportForUser(id);
    if (!exported.ok) throw new Error(`exportForUser: ${exported.status}`);
    expect(await text(exported.body)).toContain('hello');
  },
  eraseForUser: async (session, id) => {
    // Without the wait: `erased: false`, the session passed over, and stored after its user's erasure.
    expect(await session.eraseForUser()).toEqual({ ok: true, erased: true });
    return async () => {
      expect((await sessionView(id)).status).toBe(404);
      await runInDurableObject(env.SESSIONS.getByName(sessionObjectName(LOCAL_USER, id)), (_instance, state) => {
        expect(rowCount(state.storage, 'turns')).toBe(0);
        expect(rowCount(state.storage, 'messages')).toBe(0);
      });
    };
  },
  fetch: { exempt: 'the socket upgrade reads nothing of the session: it takes the socket the Worker authenticated' },
  webSocketMessage: { exempt: 'a frame reads what the opening writes: its own case below, on a turn that answers a call' },
  webSocketClose: { exempt: 'a socket that closes touches no state of the session' },
  webSocketError: { exempt: 'as webSocketClose' },
  alarm: { exempt: 'no alarm is set before a session is stored, and a later turn’s opening writes nothing its jobs read (a schedule’s turn is queued behind it)' },
};

describe('every door of the session’s object in a new session’s opening task', () => {
  it('names every method of the object’s class', () => {
    const methods = Object.getOwnPropertyNames(SessionObject.prototype).filter((name) => name !== 'constructor');
    expect(Object.keys(doors).sort()).toEqual(methods.sort());
  });

  for (const policy of ['steer', 'enqueue'] as const) {
    const status = policy === 'steer' ? 'steered' : 'queued';
    it(`startTurn with ifBusy "${policy}": ${status}, as after the opening`, async () => {
      const id = newSessionId(`opening-${policy}`);
      await inOpening(id, { messages: [user('hello')] }, MODEL, async (session) => {
        const answer = await session.startTurn({ sessionId: id, request: request('again', { ifBusy: policy }), model: MODEL });
        expect(answer).toMatchObject({ ok: true, kind: 'accepted', body: { status } });
      });
    });

    it(`startTurn with ifBusy "${policy}", a retry with the running turn’s key: follows it, not ${status} again`, async () => {
      const id = newSessionId(`opening-retry-${policy}`);
      const idempotency = { key: 'key-1', hash: 'hash-1' };
      await inOpening(id, { messages: [user('hello')] }, MODEL, async (session, storage) => {
        const retry = await session.startTurn({ sessionId: id, request: request('hello', { ifBusy: policy, stream: 'delta' }), model: MODEL, idempotency });
        expect(retry).toMatchObject({ ok: true, replayed: true });
        // Nothing queued, nothing handed to the running turn: the retry only follows it.
        expect(rowCount(storage, 'turn_queue')).toBe(0);
        if (retry.ok && 'body' in retry && retry.body instanceof ReadableStream) await retry.body.cancel();
      }, { idempotency });
    });
  }

  it('startTurn with ifBusy "interrupt": the running turn is stopped once stored, and the new one runs', async () => {
    const id = newSessionId('opening-interrupt');
    await inOpening(id, { messages: [user('hello')] }, MODEL, async (session, storage, turnId) => {
      const next = await session.startTurn({ sessionId: id, request: request('again', { ifBusy: 'interrupt', stream: 'delta' }), model: MODEL });
      expect(next).toMatchObject({ ok: true, replayed: false });
      expect(storage.sql.exec<{ status: string }>('SELECT status FROM turns WHERE turn_id = ?', turnId).one().status).toBe('cancelled');
      if (next.ok && 'body' in next && next.body instanceof ReadableStream) await next.body.cancel();
    });
  });

  for (const [method, door] of Object.entries(doors)) {
    if ('exempt' in door) continue;
    it(`${method}: answers as after the opening`, async () => {
      const id = newSessionId(`opening-${method}`);
      const after: Array<() => Promise<void>> = [];
      await inOpening(id, { messages: [user('hello')] }, MODEL, async (session, storage, turnId) => {
        expect(rowCount(storage, 'turns')).toBe(0);
        const then = await door(session, id, turnId, storage);
        if (typeof then === 'function') after.push(then);
      });
      for (const then of after) await then();
    });
  }
});

/**
 * Inside the session's object: a turn of `body` started by the turns API, and `during` run once the
 * launcher has started it, its model request gone and its opening a task away (the turn's id given);
 * then the turn is stopped, and its answer read to its end.
 */
async function inOpening(id: string, body: Record<string, unknown>, model: string, during: (session: Session, storage: DurableObjectStorage, turnId: string) => Promise<void>, first: Pick<StartTurnArgs, 'idempotency'> = {}) {
  await runInDurableObject(env.SESSIONS.getByName(sessionObjectName(LOCAL_USER, id)), async (instance, state) => {
    const session = (instance as unknown as { session: Session }).session;
    const { runner } = partsOf(instance);
    // Streamed, so that its answer comes at once.
    const started = session.startTurn({ sessionId: id, request: turnRequestSchema().parse({ stream: 'delta', ...body }), model, ...first });
    for (let tries = 0; tries < 1000 && runner.runningTurnId === undefined; tries++) await Promise.resolve();
    const turnId = runner.runningTurnId;
    expect(turnId).toBeDefined();
    await during(session, state.storage, turnId!);
    await runner.stop();
    const answer = await started;
    expect(answer).toMatchObject({ ok: true });
    if (answer.ok && 'body' in answer && answer.body instanceof ReadableStream) await text(answer.body);
  });
}

describe('a chat socket’s frame in a turn’s opening task', () => {
  it('waits for it: a call the turn answered is no longer owed to the socket', async () => {
    const id = newSessionId('opening-socket');
    const tools = [{ name: 'get_weather' }];
    await jsonTurn(id, { messages: [user('call get_weather {"city":"Paris"}')], tools });
    const [call] = (await sessionView(id)).body.pendingToolCalls;
    expect(call).toMatchObject({ awaiting: 'client' });
    const answer = { messages: [{ role: 'tool', toolCallId: call.toolCallId, content: '18°C' }], tools };
    await inOpening(id, answer, readConfig(env).defaultModel, async (session, storage) => {
      expect(rowCount(storage, 'turns')).toBe(1);
      // The same answer from a socket, in the task where the HTTP turn that carried it has started.
      const frames: unknown[] = [];
      const socket = { deserializeAttachment: () => ({ sessionId: id, userId: LOCAL_USER }), send: (text: string) => frames.push(JSON.parse(text)) };
      const frame = { type: 'append_message', role: 'tool', tool_call_id: call.toolCallId, content: 'again' };
      await session.webSocketMessage(socket as unknown as WebSocket, JSON.stringify(frame));
      expect(frames).toEqual([expect.objectContaining({ type: 'error', code: 'unknown_tool_call' })]);
      expect(rowCount(storage, 'socket_staged')).toBe(0);
    });
  });
});
