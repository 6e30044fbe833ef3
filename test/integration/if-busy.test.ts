/**
 * A second message while a turn runs (`ifBusy`), with a turn that really runs when it comes (a slow
 * stand-in model: ten chunks 150 ms apart): reject, enqueue (in order, followed while it waits,
 * cancellable, bounded, kept through an eviction, once per Idempotency-Key), interrupt and steer.
 * Whatever the interleaving, calls stay paired, no message is stored twice or lost, and every turn's
 * events end with exactly one turn_stop.
 */
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { sessionObjectName } from '../../src/http/session-stub';
import { checkHistoryInvariants, fetchWorker, history, newSessionId, postTurn, readSse, session, user, waitIdle } from '../helpers/api';

import { running, SLOW } from '../helpers/busy';
import { partsOf } from '../helpers/session-parts';
import type { SteeringInbox } from '../../src/session/steering';

const json = async (response: Response) => ({ status: response.status, body: (await response.json()) as any });
const users = async (id: string) => (await history(id)).filter((message) => message.role === 'user').map((message) => message.content);

describe('ifBusy', () => {
  it('reject (the default): 409 session_busy naming the running turn; nothing changes', async () => {
    const id = newSessionId('busy-reject');
    const first = await running(id);
    const refused = await json(await postTurn(id, { messages: [user('second')] }));
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'session_busy', details: { runningTurnId: first.turnId } });
    expect((await first.rest).at(-1)!.data.stopReason).toBe('end_turn');
    expect(await users(id)).toEqual(['first']);
  });

  it('reject, two at once on a new session (its first turn stores its opening after its model request): one runs, the other is refused 409', async () => {
    const id = newSessionId('busy-at-once');
    const [a, b] = await Promise.all([postTurn(id, { messages: [user('one')], stream: 'delta', model: SLOW }), postTurn(id, { messages: [user('two')], stream: 'delta', model: SLOW })]);
    const [ran, refused] = a.status === 200 ? [a, b] : [b, a];
    expect([ran.status, refused.status]).toEqual([200, 409]);
    const events = await readSse(ran);
    const body = (await refused.json()) as any;
    expect(body.error).toMatchObject({ code: 'session_busy', details: { runningTurnId: events[0]!.data.turnId } });
    expect(events.at(-1)!.data.stopReason).toBe('end_turn');
    expect((await users(id)).length).toBe(1);
    checkHistoryInvariants(await history(id));
  });

  it('enqueue: 202 with its place, listed by the session, followed while it waits, run after, in order', async () => {
    const id = newSessionId('busy-enqueue');
    const first = await running(id);
    const a = await json(await postTurn(id, { messages: [user('second')], ifBusy: 'enqueue' }));
    const b = await json(await postTurn(id, { messages: [user('third')], ifBusy: 'enqueue', stream: 'delta' }));
    expect(a).toMatchObject({ status: 202, body: { status: 'queued', position: 1 } });
    expect(b).toMatchObject({ status: 202, body: { status: 'queued', position: 2 } });
    expect((await session(id)).body.queuedTurns).toEqual([
      { turnId: a.body.turnId, position: 1 },
      { turnId: b.body.turnId, position: 2 },
    ]);
    const follow = await fetchWorker(`/sessions/${id}/turns/${b.body.turnId}/events`);
    const text = await follow.text();
    expect(text.startsWith(': queued\n\n')).toBe(true);
    const events = await readSse(new Response(text));
    expect(events[0]!.event).toBe('turn_start');
    expect(events.filter((event) => event.event === 'turn_stop')).toHaveLength(1);
    expect(events.at(-1)!.data).toMatchObject({ turnId: b.body.turnId, stopReason: 'end_turn' });
    await first.rest;
    await waitIdle(id);
    expect(await users(id)).toEqual(['first', 'second', 'third']);
    expect((await session(id)).body.queuedTurns).toEqual([]);
    checkHistoryInvariants(await history(id));
  });

  it('enqueue: cancellable while it waits; bounded by MAX_QUEUED_TURNS; once per Idempotency-Key', async () => {
    const id = newSessionId('busy-queue');
    const first = await running(id);
    const keyed = (key: string) =>
      fetchWorker(`/sessions/${id}/turns`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify({ messages: [user('keyed')], ifBusy: 'enqueue' }),
      });
    const once = await json(await keyed('k1'));
    const again = await keyed('k1');
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(once.body);
    const cancelled = await json(await postTurn(id, { messages: [user('cancelled')], ifBusy: 'enqueue' }));
    await json(await postTurn(id, { messages: [user('last')], ifBusy: 'enqueue' }));
    // The test deployment's MAX_QUEUED_TURNS is 3 (vitest.config.ts).
    const full = await json(await postTurn(id, { messages: [user('one too many')], ifBusy: 'enqueue' }));
    expect(full).toMatchObject({ status: 409, body: { error: { code: 'queue_full' } } });
    const cancel = await json(await fetchWorker(`/sessions/${id}/turns/${cancelled.body.turnId}/cancel`, { method: 'POST' }));
    expect(cancel).toMatchObject({ status: 200, body: { turnId: cancelled.body.turnId, status: 'cancelled' } });
    const its = await readSse(await fetchWorker(`/sessions/${id}/turns/${cancelled.body.turnId}/events`));
    expect(its.map((event) => event.event)).toEqual(['turn_stop']);
    expect(its[0]!.data).toMatchObject({ stopReason: 'error', error: { code: 'cancelled' } });
    await first.rest;
    await waitIdle(id);
    await waitIdle(id);
    expect(await users(id)).toEqual(['first', 'keyed', 'last']);
  });

  it('enqueue: a queued turn that is invalid when it starts ends with turn_stop error and stores nothing', async () => {
    const id = newSessionId('busy-invalid');
    const first = await running(id);
    const queued = await json(await postTurn(id, { messages: [{ role: 'tool', toolCallId: 'call_nope', content: 'x' }], ifBusy: 'enqueue' }));
    expect(queued.status).toBe(202);
    await first.rest;
    const events = await readSse(await fetchWorker(`/sessions/${id}/turns/${queued.body.turnId}/events`));
    expect(events.map((event) => event.event)).toEqual(['turn_stop']);
    expect(events[0]!.data).toMatchObject({ stopReason: 'error', error: { code: 'unknown_tool_call' } });
    expect((await history(id)).filter((message) => message.role === 'tool')).toEqual([]);
  });

  it('enqueue: the queue outlives its object; the alarm runs what waits', async () => {
    const id = newSessionId('busy-evicted');
    const first = await running(id);
    const queued = await json(await postTurn(id, { messages: [user('after the restart')], ifBusy: 'enqueue' }));
    await abortAllDurableObjects();
    await first.rest.catch(() => []);
    const stub = env.SESSIONS.getByName(sessionObjectName('local', id));
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const view = await waitIdle(id);
    expect(view.queuedTurns).toEqual([]);
    const events = await readSse(await fetchWorker(`/sessions/${id}/turns/${queued.body.turnId}/events`));
    expect(events.at(-1)!.data.stopReason).toBe('end_turn');
    expect(await users(id)).toEqual(['first', 'after the restart']);
    checkHistoryInvariants(await history(id));
  });

  it('interrupt: the running turn is cancelled as by its cancel route, then this one runs at once', async () => {
    const id = newSessionId('busy-interrupt');
    const first = await running(id);
    const now = await json(await postTurn(id, { messages: [user('instead')], ifBusy: 'interrupt', model: 'demo:demo' }));
    expect(now.status).toBe(200);
    expect(now.body.stopReason).toBe('end_turn');
    const stop = (await first.rest).at(-1)!;
    expect(stop).toMatchObject({ event: 'turn_stop', data: { turnId: first.turnId, stopReason: 'error', error: { code: 'cancelled' } } });
    const stored = await history(id);
    // The cancelled turn's partial text is kept, before the new turn's messages.
    expect(stored.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(stored[2]!.content).toBe('instead');
    checkHistoryInvariants(stored);
  });

  it('steer: user messages join the running turn at its next step boundary; it answers once more', async () => {
    const id = newSessionId('busy-steer');
    const first = await running(id);
    const steered = await json(await postTurn(id, { messages: [user('also this')], ifBusy: 'steer' }));
    expect(steered).toMatchObject({ status: 202, body: { turnId: first.turnId, status: 'steered' } });
    const events = await first.rest;
    expect(events.filter((event) => event.event === 'turn_stop')).toHaveLength(1);
    expect(events.at(-1)!.data.stopReason).toBe('end_turn');
    const stored = await history(id);
    expect(stored.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(stored[2]!.content).toBe('also this');
    expect((await session(id)).body.queuedTurns).toEqual([]);
  });

  it('steer: what the running turn cannot take (it is cancelled first) becomes a turn of its own', async () => {
    const id = newSessionId('busy-steer-left');
    const first = await running(id);
    await json(await postTurn(id, { messages: [user('left over')], ifBusy: 'steer' }));
    await json(await fetchWorker(`/sessions/${id}/turns/${first.turnId}/cancel`, { method: 'POST' }));
    await first.rest;
    await waitIdle(id);
    await waitIdle(id);
    expect(await users(id)).toEqual(['first', 'left over']);
    checkHistoryInvariants(await history(id));
  });

  it('steer: messages the running turn has taken cannot be cancelled (409), and are kept', async () => {
    const id = newSessionId('busy-steer-taken');
    const first = await running(id);
    expect((await json(await postTurn(id, { messages: [user('taken')], ifBusy: 'steer' }))).status).toBe(202);
    const [queued] = (await session(id)).body.queuedTurns;
    // The loop takes them at its step's end and may send them before it stores them: taken here, as it does.
    await runInDurableObject(env.SESSIONS.getByName(sessionObjectName('local', id)), (instance) => {
      expect(partsOf<{ runner: { running: { inbox: SteeringInbox } } }>(instance).runner.running.inbox.take()).toEqual([user('taken')]);
    });
    const refused = await json(await fetchWorker(`/sessions/${id}/turns/${queued.turnId}/cancel`, { method: 'POST' }));
    expect(refused).toMatchObject({ status: 409, body: { error: { code: 'turn_not_running', details: { status: 'queued' } } } });
    expect(refused.body.error.message).toContain('steered into the running turn');
    expect((await session(id)).body.queuedTurns).toEqual([queued]);
    // Never told by this turn, so never stored by it: they run as a turn of their own once it ends.
    await first.rest;
    await waitIdle(id);
    await waitIdle(id);
    expect(await users(id)).toEqual(['first', 'taken']);
    checkHistoryInvariants(await history(id));
  });

  it('steer takes user messages only (400); on an idle session every policy is a plain turn', async () => {
    const id = newSessionId('busy-idle');
    const bad = await json(await postTurn(id, { messages: [{ role: 'system', content: 'no' }], ifBusy: 'steer' }));
    expect(bad).toMatchObject({ status: 400, body: { error: { code: 'invalid_request' } } });
    for (const ifBusy of ['reject', 'enqueue', 'interrupt', 'steer']) {
      const plain = await json(await postTurn(id, { messages: [user(`idle ${ifBusy}`)], ifBusy }));
      expect(plain).toMatchObject({ status: 200, body: { stopReason: 'end_turn' } });
    }
  });
});
