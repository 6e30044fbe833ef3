/**
 * Turns without a client (docs/background.md): `Prefer: respond-async`, the turn's state and answer,
 * and signed webhooks for every turn's end, checked by the published `standardwebhooks` verifier in a
 * stand-in receiver on loopback, retried with the same `webhook-id`, across an eviction.
 */
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it, vi } from 'vitest';
import { turnViewSchema, deliveryListSchema } from '../../src/api/background-responses';
import { acceptedTurnSchema, turnBodySchema } from '../../src/api/responses';
import { sessionObject } from '../../src/users/owner';
import { fetchWorker, newSessionId, readSse, turn, user } from '../helpers/api';
import { openConnections } from '../helpers/open-connections';
import { delivered, hookReceiver, hooksOf } from '../helpers/hooks';
import { complete, openSocket } from '../helpers/socket';

const post = (sessionId: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  fetchWorker(`/sessions/${sessionId}/turns`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
const getTurn = async (sessionId: string, turnId: string) => (await fetchWorker(`/sessions/${sessionId}/turns/${turnId}`)).json() as Promise<any>;
const ended = (sessionId: string, turnId: string) =>
  vi.waitFor(
    async () => {
      const view = await getTurn(sessionId, turnId);
      expect(['finished', 'cancelled', 'failed']).toContain(view.status);
      return view;
    },
    { timeout: 8000, interval: 50 },
  );

describe('Prefer: respond-async', () => {
  it('answers 202 at once in any stream mode; the turn runs to its end; its state and answer are read later', async () => {
    for (const stream of ['none', 'delta']) {
      const id = newSessionId('bg');
      const response = await post(id, { messages: [user('slowly')], model: 'openai:script/slow', stream }, { prefer: 'respond-async, wait=10' });
      expect(response.status).toBe(202);
      expect(response.headers.get('preference-applied')).toBe('respond-async');
      const accepted = acceptedTurnSchema.parse(await response.json());
      expect(accepted).toEqual({ turnId: expect.stringMatching(/^turn_/), status: 'running' });
      expect(turnViewSchema.parse(await getTurn(id, accepted.turnId))).toEqual({ turnId: accepted.turnId, status: 'running', startedAt: expect.any(String) });
      const view = turnViewSchema.parse(await ended(id, accepted.turnId));
      expect(view).toMatchObject({ status: 'finished', stopReason: 'end_turn', turnId: accepted.turnId });
      // What stream "none" would have answered, with its ids; and when it ran.
      const { status: _status, startedAt, endedAt, ...body } = view;
      expect(Date.parse(endedAt!)).toBeGreaterThanOrEqual(Date.parse(startedAt!));
      expect(turnBodySchema.parse(body).messages).toEqual([expect.objectContaining({ role: 'assistant', id: 'msg_2', parentId: 'msg_1' })]);
      // Its events follow at the resume route as usual.
      const events = await readSse(await fetchWorker(`/sessions/${id}/turns/${accepted.turnId}/events`));
      expect(events.at(-1)).toMatchObject({ event: 'turn_stop', data: { stopReason: 'end_turn' } });
    }
  });

  it('queues behind a running turn with ifBusy enqueue, and reports queued, then its end', async () => {
    const id = newSessionId('bg-queue');
    const first = acceptedTurnSchema.parse(await (await post(id, { messages: [user('slowly')], model: 'openai:script/slow' }, { prefer: 'respond-async' })).json());
    const second = await post(id, { messages: [user('then this')], ifBusy: 'enqueue' }, { prefer: 'respond-async' });
    expect(second.status).toBe(202);
    const queued = acceptedTurnSchema.parse(await second.json());
    expect(queued).toMatchObject({ status: 'queued', position: 1 });
    expect(await getTurn(id, queued.turnId)).toEqual({ turnId: queued.turnId, status: 'queued' });
    expect((await ended(id, first.turnId)).status).toBe('finished');
    expect((await ended(id, queued.turnId)).status).toBe('finished');
  });

  it('reports a cancelled turn cancelled, and a failed one failed with its error', async () => {
    const id = newSessionId('bg-stop');
    const slow = acceptedTurnSchema.parse(await (await post(id, { messages: [user('slowly')], model: 'openai:script/slow' }, { prefer: 'respond-async' })).json());
    await fetchWorker(`/sessions/${id}/turns/${slow.turnId}/cancel`, { method: 'POST' });
    expect(await ended(id, slow.turnId)).toMatchObject({ status: 'cancelled', error: { code: 'cancelled' } });
    const failing = acceptedTurnSchema.parse(await (await post(id, { messages: [user('demo:error')] }, { prefer: 'respond-async' })).json());
    expect(await ended(id, failing.turnId)).toMatchObject({ status: 'failed', stopReason: 'error', error: { code: expect.any(String) } });
  });

  it('answers 404 for a turn the session does not have', async () => {
    const id = newSessionId('bg-404');
    await turn(id, { messages: [user('hello')] });
    expect((await fetchWorker(`/sessions/${id}/turns/turn_000000000000000000000000`)).status).toBe(404);
    expect((await fetchWorker(`/sessions/${id}/turns/nope`)).status).toBe(404);
  });
});

describe('webhooks', () => {
  it('sends turn.completed, signed so that the published verifier accepts it, with the turn’s usage', async () => {
    const id = newSessionId('hook-done');
    const answer = await turn(id, { messages: [user('hello')] });
    const [hook] = await delivered(id, 1);
    expect(hook).toMatchObject({ verified: true, answered: 204, type: 'turn.completed', webhookId: expect.stringMatching(/^msg_/) });
    const body = JSON.parse(hook!.body);
    expect(Object.keys(body)).toEqual(['type', 'timestamp', 'data']);
    expect(body.data).toEqual({ userId: 'local', sessionId: id, turnId: (answer as any).body.turnId, stopReason: 'end_turn', usage: expect.objectContaining({ inputTokens: expect.any(Number) }) });
    expect(Math.abs(Number(hook!.timestamp) * 1000 - Date.now())).toBeLessThan(60_000);
  });

  it('sends turn.requires_action with the pending calls; the later answer resumes the turn, and its end sends turn.completed', async () => {
    const id = newSessionId('hook-approve');
    await turn(id, { messages: [user('remember the door code')] });
    const [asked] = await delivered(id, 1);
    expect(asked).toMatchObject({ verified: true, type: 'turn.requires_action' });
    expect(asked!.data.stopReason).toBe('tool_use');
    const [call] = asked!.data.pendingToolCalls;
    expect(call).toEqual({ toolCallId: expect.any(String), name: 'memory_save', input: { text: 'the door code' }, awaiting: 'permission' });
    // Whatever got the webhook answers, hours later, with no client online before.
    const answered = await post(id, { messages: [{ role: 'tool_permission', toolCallId: call.toolCallId, granted: true }] }, { prefer: 'respond-async' });
    expect(answered.status).toBe(202);
    const hooks = await delivered(id, 2);
    expect(hooks.at(-1)).toMatchObject({ verified: true, type: 'turn.completed', data: { stopReason: 'end_turn' } });
  });

  it('sends turn.failed for an error and for a cancel', async () => {
    const id = newSessionId('hook-fail');
    await turn(id, { messages: [user('demo:error')] });
    const slow = acceptedTurnSchema.parse(await (await post(id, { messages: [user('slowly')], model: 'openai:script/slow' }, { prefer: 'respond-async' })).json());
    await fetchWorker(`/sessions/${id}/turns/${slow.turnId}/cancel`, { method: 'POST' });
    const hooks = await delivered(id, 2);
    expect(hooks.map((hook) => [hook.type, hook.data.error?.code])).toEqual([
      ['turn.failed', expect.any(String)],
      ['turn.failed', 'cancelled'],
    ]);
  });

  it('retries a delivery the receiver refuses, with the same webhook-id, and lists every attempt', async () => {
    const id = newSessionId('hookfail-2');
    await turn(id, { messages: [user('hello')] });
    const hooks = await delivered(id, 1);
    expect(hooks.map((hook) => hook.answered)).toEqual([503, 503, 204]);
    expect(new Set(hooks.map((hook) => hook.webhookId)).size).toBe(1);
    expect(hooks.every((hook) => hook.verified)).toBe(true);
    const deliveries = deliveryListSchema.parse(await (await fetchWorker(`/sessions/${id}/deliveries`)).json()).deliveries;
    expect(deliveries).toEqual([expect.objectContaining({ webhookId: hooks[0]!.webhookId, type: 'turn.completed', state: 'delivered' })]);
    expect(deliveries[0]!.attempts.map((attempt) => attempt.status)).toEqual([503, 503, 204]);
    // Each attempt is signed for its own time, once its backoff has passed (100 ms, then 200 ms) by
    // the session's own clock: a retry is due at its attempt's time plus the backoff, and sent no
    // sooner. (The receiver's clock also counts each request's way there, which varies.)
    const times = deliveries[0]!.attempts.map((attempt) => Date.parse(attempt.at));
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(100);
    expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(200);
  });

  it('takes a redirect for a failed attempt, never following it: a POST sent on as a GET would be answered without its event', async () => {
    const id = newSessionId('hookmoved-1');
    await turn(id, { messages: [user('hello')] });
    const hooks = await delivered(id, 1);
    expect(hooks.map((hook) => hook.answered)).toEqual([301, 204]);
    const deliveries = deliveryListSchema.parse(await (await fetchWorker(`/sessions/${id}/deliveries`)).json()).deliveries;
    expect(deliveries[0]).toMatchObject({ state: 'delivered' });
    expect(deliveries[0]!.attempts).toEqual([
      { at: expect.any(String), status: 301, error: expect.stringMatching(/^redirected to http:\/\/127\.0\.0\.1:\d+\/moved: .*WEBHOOK_URL/) },
      { at: expect.any(String), status: 204 },
    ]);
  });

  it('reads a refusal to its end, so that its connection stays open for the retry', async () => {
    const id = newSessionId('hookfail-1');
    await turn(id, { messages: [user('hello')] });
    const [refused, taken] = await delivered(id, 1);
    expect([refused!.answered, taken!.answered]).toEqual([503, 204]);
    // Its body cancelled instead, the refusal's connection was closed at once.
    expect(await openConnections(hookReceiver)).toContain(refused!.socket);
  });

  it('keeps an alarm from a background turn’s start: a restart in its first moments still ends it, webhook and all', async () => {
    const id = newSessionId('hook-cut');
    const object = () => sessionObject(env, { userId: 'local' }, id);
    const slow = acceptedTurnSchema.parse(await (await post(id, { messages: [user('slowly')], model: 'openai:script/slow' }, { prefer: 'respond-async' })).json());
    // At once, where a turn a client follows sets its keepalive only once it has run 250 ms: the
    // keepalive is there (a restart wakes the object by it, to close the cut turn).
    const alarmIn = await runInDurableObject(object(), async (_instance, state) => ((await state.storage.getAlarm()) ?? Infinity) - Date.now());
    expect(alarmIn).toBeGreaterThan(25_000);
    expect(alarmIn).toBeLessThanOrEqual(30_000);
    await abortAllDurableObjects();
    // The alarm is run now rather than waited for. Running it wakes the object, and a waking object
    // closes cut turns anyway: what holds the fix is the alarm read above; this shows the way on.
    expect(await runDurableObjectAlarm(object())).toBe(true);
    const [hook] = await delivered(id, 1);
    expect(hook).toMatchObject({ verified: true, type: 'turn.failed', data: { turnId: slow.turnId } });
  });

  it('delivers after an eviction between two attempts', async () => {
    const id = newSessionId('hookfail-1');
    await turn(id, { messages: [user('hello')] });
    await vi.waitFor(async () => expect(await hooksOf(id)).toHaveLength(1), { timeout: 5000, interval: 20 });
    // The session has stored the refused attempt and its retry (the receiver saw the attempt first:
    // an object gone before it stored the answer tries again only after the attempt's timeout).
    await vi.waitFor(
      async () => {
        const { deliveries } = deliveryListSchema.parse(await (await fetchWorker(`/sessions/${id}/deliveries`)).json());
        expect(deliveries[0]?.attempts.map((attempt) => attempt.status)).toEqual([503]);
      },
      { timeout: 5000, interval: 20 },
    );
    // The retry waits in storage; the object goes before it is sent.
    await abortAllDurableObjects();
    const hooks = await delivered(id, 1);
    expect(hooks.map((hook) => hook.answered)).toEqual([503, 204]);
    expect(hooks[0]!.webhookId).toBe(hooks[1]!.webhookId);
  });

  it('sends the end of a turn of every door: the Harness, AG-UI, the socket, a sub-agent', async () => {
    const harness = newSessionId('hook-harness');
    await (await fetchWorker('/harness/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sessionId: harness, userId: 'local', input: 'hello' }) })).text();
    expect((await delivered(harness, 1))[0]).toMatchObject({ verified: true, type: 'turn.completed' });
    const agui = newSessionId('hook-agui');
    await readSse(
      await fetchWorker('/ag-ui', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ threadId: agui, runId: 'r', messages: [{ id: 'm', role: 'user', content: 'hello' }], tools: [], context: [], state: {}, forwardedProps: {} }),
      }),
    );
    expect((await delivered(agui, 1))[0]).toMatchObject({ verified: true, type: 'turn.completed' });
    const socketId = newSessionId('hook-socket');
    await complete(await openSocket(socketId), 'hello');
    expect((await delivered(socketId, 1))[0]).toMatchObject({ verified: true, type: 'turn.completed' });
    const parent = newSessionId('hook-parent');
    await turn(parent, { messages: [user('call agent_spawn {"agentId":"helper","task":"hello","expose_to_user":true}')] });
    const child = ((await (await fetchWorker('/sessions')).json()) as any).sessions.find((entry: any) => entry.parentSessionId === parent);
    expect((await delivered(child.sessionId, 1))[0]).toMatchObject({ verified: true, type: 'turn.completed', data: { sessionId: child.sessionId } });
    expect((await delivered(parent, 1))[0]).toMatchObject({ verified: true, type: 'turn.completed' });
  });

  it('refuses the deliveries of a session that does not exist', async () => {
    expect((await fetchWorker(`/sessions/${newSessionId('none')}/deliveries`)).status).toBe(404);
    expect((await fetchWorker(`/sessions/${newSessionId('none')}/deliveries`, { method: 'POST' })).status).toBe(405);
  });
});
