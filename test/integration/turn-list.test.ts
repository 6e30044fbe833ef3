/**
 * A session's turns listed (`GET /sessions/{id}/turns`, docs/background.md) and, through the A2A door,
 * its context's tasks (`ListTasks`, docs/a2a.md): newest first, a page at a time, by state and by the
 * time their state changed, each turn's state, times and stop; a queued one with its place. A turn's
 * state is said the same way by the list, its own route and the session. Every bad query is a 400 (a
 * JSON-RPC -32602 at the A2A door) that leaves the session as it was.
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it, vi } from 'vitest';
import { turnsPageSchema } from '../../src/api/background-responses';
import { sessionObjectName } from '../../src/http/session-stub';
import { SessionMeta } from '../../src/session/store/meta';
import { TurnStore } from '../../src/session/store/turns';
import { fetchWorker, newSessionId, postTurn, session, turn, user } from '../helpers/api';
import { running, SLOW } from '../helpers/busy';

const list = async (sessionId: string, query = '') => {
  const response = await fetchWorker(`/sessions/${sessionId}/turns${query}`);
  expect(response.status).toBe(200);
  return turnsPageSchema.parse(await response.json());
};
const a2a = async (method: string, params: unknown, version = '1.0') => {
  const response = await fetchWorker('/a2a', { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': version }, body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }) });
  expect(response.status).toBe(200);
  return response.json<any>();
};
const idle = (sessionId: string) =>
  vi.waitFor(
    async () => {
      const { turns } = await list(sessionId);
      expect(turns.every((listed) => listed.status !== 'running' && listed.status !== 'queued')).toBe(true);
      return turns;
    },
    { timeout: 10_000, interval: 50 },
  );

/** A session whose turns ended every way: finished (`end_turn`, `tool_use`), failed, cancelled; newest first. */
async function sessionOfEveryEnd(label: string): Promise<{ id: string; turnIds: string[] }> {
  const id = newSessionId(label);
  const turnIds: string[] = [];
  const ran = async (body: Record<string, unknown>) => {
    const result = await turn(id, { ...body, stream: 'none' });
    expect(result.status).toBe(200);
    if (result.mode === 'none') turnIds.unshift(result.body.turnId);
  };
  await ran({ messages: [user('hello')] });
  await ran({ messages: [user('remember the milk')] });
  const [pending] = (await session(id)).body.pendingToolCalls;
  await ran({ messages: [{ role: 'tool_permission', toolCallId: pending.toolCallId, granted: false }, user('demo:error')] });
  const slow = await running(id);
  expect((await fetchWorker(`/sessions/${id}/turns/${slow.turnId}/cancel`, { method: 'POST' })).status).toBe(200);
  await slow.rest;
  turnIds.unshift(slow.turnId);
  return { id, turnIds };
}

describe('GET /sessions/{id}/turns', () => {
  it('lists every turn newest first with its state, model, times and stop; a queued one with its place', async () => {
    const { id, turnIds } = await sessionOfEveryEnd('list');
    const { turns, next } = await list(id);
    expect(next).toBeUndefined();
    expect(turns.map((listed) => listed.turnId)).toEqual(turnIds);
    expect(turns.map(({ status, stopReason, errorCode }) => ({ status, stopReason, errorCode }))).toEqual([
      { status: 'cancelled', stopReason: 'error', errorCode: 'cancelled' },
      { status: 'failed', stopReason: 'error', errorCode: expect.any(String) },
      { status: 'finished', stopReason: 'tool_use', errorCode: undefined },
      { status: 'finished', stopReason: 'end_turn', errorCode: undefined },
    ]);
    for (const listed of turns) {
      // No schedule started these (test/background/schedules.test.ts has one that did).
      expect(listed.scheduleId).toBeUndefined();
      expect(listed.model).toMatch(/^(demo|openai):/);
      expect(Date.parse(listed.endedAt!)).toBeGreaterThanOrEqual(Date.parse(listed.startedAt!));
      expect(listed.position).toBeUndefined();
    }

    // One running, two waiting behind it.
    const slow = await running(id, 'again');
    const queued = [];
    for (const text of ['one', 'two']) {
      const response = await postTurn(id, { messages: [user(text)], ifBusy: 'enqueue', stream: 'none' });
      expect(response.status).toBe(202);
      queued.push(((await response.json()) as { turnId: string }).turnId);
    }
    const busy = await list(id, '?limit=3');
    expect(busy.turns).toEqual([
      { turnId: queued[1], status: 'queued', model: 'demo:demo', position: 2 },
      { turnId: queued[0], status: 'queued', model: 'demo:demo', position: 1 },
      { turnId: slow.turnId, status: 'running', model: SLOW, startedAt: expect.any(String) },
    ]);
    expect(busy.next).toEqual(expect.any(String));
    await slow.rest;
    expect((await idle(id)).map((listed) => listed.status).slice(0, 3)).toEqual(['finished', 'finished', 'finished']);
  });

  it('pages with the cursor it gives, and keeps a state when asked', async () => {
    const { id, turnIds } = await sessionOfEveryEnd('pages');
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await list(id, `?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.turns.length).toBeLessThanOrEqual(3);
      seen.push(...page.turns.map((listed) => listed.turnId));
      cursor = page.next;
    } while (cursor);
    expect(seen).toEqual(turnIds);

    expect((await list(id, '?status=failed')).turns.map((listed) => listed.turnId)).toEqual([turnIds[1]]);
    expect((await list(id, '?status=cancelled')).turns.map((listed) => listed.turnId)).toEqual([turnIds[0]]);
    expect((await list(id, '?status=finished&limit=1')).turns.map((listed) => listed.turnId)).toEqual([turnIds[2]]);
    const second = await list(id, `?status=finished&limit=1&cursor=${(await list(id, '?status=finished&limit=1')).next}`);
    expect(second).toEqual({ turns: [expect.objectContaining({ turnId: turnIds[3] })] });
    expect((await list(id, '?status=running')).turns).toEqual([]);

    // What changed since a time: the cancelled turn ended last, well after the others.
    const [last] = (await list(id)).turns;
    expect((await list(id, `?since=${last!.endedAt}`)).turns.map((listed) => listed.turnId)).toEqual([turnIds[0]]);
    expect((await list(id, `?since=${encodeURIComponent('2026-01-01T00:00:00+01:00')}&status=failed`)).turns.map((listed) => listed.turnId)).toEqual([turnIds[1]]);
    expect((await list(id, `?since=${new Date(Date.now() + 60_000).toISOString()}`)).turns).toEqual([]);
  });

  it('refuses a bad query with 400 and an unknown session with 404, and leaves the session as it was', async () => {
    const id = newSessionId('list-bad');
    await turn(id, { messages: [user('hello')], stream: 'none' });
    const before = [await list(id), (await session(id)).body];
    for (const query of ['?limit=0', '?limit=101', '?limit=ten', '?cursor=abc', '?cursor=-1', '?status=done', '?limit=1&limit=2', '?order=asc', '?since=yesterday', '?since=2026-12-01']) {
      const response = await fetchWorker(`/sessions/${id}/turns${query}`);
      expect(response.status, query).toBe(400);
      expect(await response.json(), query).toMatchObject({ error: { code: 'invalid_query', message: expect.stringContaining('The query is not valid') } });
    }
    expect((await fetchWorker(`/sessions/${id}/turns?cursor=abc`)).headers.get('content-type')).toContain('application/json');
    const unknown = await fetchWorker(`/sessions/${newSessionId('never')}/turns`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { code: 'session_not_found' } });
    expect((await fetchWorker('/sessions/not%20an%20id/turns')).status).toBe(400);
    const put = await fetchWorker(`/sessions/${id}/turns`, { method: 'PUT' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, POST, HEAD');
    expect([await list(id), (await session(id)).body]).toEqual(before);
  });
});

describe('a turn’s state, the same on every route', () => {
  it('the session’s last turn says failed for a turn that failed, as the turn’s route and the list do', async () => {
    const id = newSessionId('state');
    const failed = await turn(id, { messages: [user('demo:error')], stream: 'none' });
    const turnId = failed.mode === 'none' ? String(failed.body.turnId) : '';
    const view = await (await fetchWorker(`/sessions/${id}/turns/${turnId}`)).json<any>();
    expect(view.status).toBe('failed');
    expect((await session(id)).body.lastTurn).toEqual({ turnId, status: 'failed', stopReason: 'error', errorCode: expect.any(String) });
    expect((await list(id)).turns[0]).toMatchObject({ turnId, status: 'failed' });
  });
});

describe('A2A ListTasks', () => {
  it('lists a context’s tasks newest first, by state, a page at a time, with the total', async () => {
    const { id, turnIds } = await sessionOfEveryEnd('a2a-list');
    const all = (await a2a('ListTasks', { contextId: id })).result;
    expect(all).toMatchObject({ nextPageToken: '', pageSize: 50, totalSize: 4 });
    expect(all.tasks.map((task: any) => [task.id, task.contextId, task.status.state])).toEqual([
      [`${turnIds[0]}:${id}`, id, 'TASK_STATE_CANCELED'],
      [`${turnIds[1]}:${id}`, id, 'TASK_STATE_FAILED'],
      [`${turnIds[2]}:${id}`, id, 'TASK_STATE_INPUT_REQUIRED'],
      [`${turnIds[3]}:${id}`, id, 'TASK_STATE_COMPLETED'],
    ]);
    // Each as GetTask answers it, without its artifacts unless they are asked for.
    const whole = (await a2a('ListTasks', { contextId: id, includeArtifacts: true })).result.tasks;
    const got = (await a2a('GetTask', { id: `${turnIds[3]}:${id}` })).result;
    expect(whole[3]).toEqual(got);
    expect(all.tasks[3]).toEqual({ ...got, artifacts: [] });
    expect(got.history).toEqual([{ messageId: `${got.id}/user/1`, contextId: id, taskId: got.id, role: 'ROLE_USER', parts: [{ text: 'hello' }] }]);
    const short = (await a2a('ListTasks', { contextId: id, historyLength: 0 })).result.tasks;
    expect(short.map((task: any) => task.history)).toEqual([[], [], [], []]);
    // A task read again from its turn's log is the task as it was: its status at the turn's end, not at the read.
    const { turns } = await list(id);
    expect(got.status.timestamp).toBe(turns[3]!.endedAt);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await a2a('GetTask', { id: `${turnIds[3]}:${id}` })).result).toEqual(got);
    expect(whole[3].artifacts[0].parts[0].text).toEqual(expect.any(String));
    expect(whole[2].status.message.parts[0].data.pendingToolCalls).toEqual([expect.objectContaining({ name: 'memory_save', awaiting: 'permission' })]);

    const first = (await a2a('ListTasks', { contextId: id, pageSize: 3 })).result;
    expect(first).toMatchObject({ pageSize: 3, totalSize: 4, nextPageToken: expect.stringMatching(/^\d+$/) });
    const rest = (await a2a('ListTasks', { contextId: id, pageSize: 3, pageToken: first.nextPageToken })).result;
    expect([...first.tasks, ...rest.tasks].map((task: any) => task.id)).toEqual(all.tasks.map((task: any) => task.id));
    expect(rest.nextPageToken).toBe('');

    const failed = (await a2a('ListTasks', { contextId: id, status: 'TASK_STATE_FAILED' })).result;
    expect(failed).toMatchObject({ totalSize: 1, tasks: [{ id: `${turnIds[1]}:${id}` }] });
    // ProtoJSON's number of a state as well as its name: 3 is TASK_STATE_COMPLETED.
    const completed = (await a2a('ListTasks', { contextId: id, status: 3 })).result;
    expect(completed.tasks.map((task: any) => task.id)).toEqual([`${turnIds[3]}:${id}`]);
    expect((await a2a('ListTasks', { contextId: id, status: 'TASK_STATE_REJECTED' })).result).toEqual({ tasks: [], nextPageToken: '', pageSize: 50, totalSize: 0 });
    const later = new Date(Date.now() + 60_000).toISOString();
    expect((await a2a('ListTasks', { contextId: id, statusTimestampAfter: later })).result).toMatchObject({ tasks: [], totalSize: 0 });
    const earlier = new Date(Date.now() - 60_000).toISOString();
    expect((await a2a('ListTasks', { contextId: id, statusTimestampAfter: earlier, status: 'TASK_STATE_UNSPECIFIED' })).result.totalSize).toBe(4);
    // A context no turn has run in has no tasks.
    expect((await a2a('ListTasks', { contextId: newSessionId('a2a-none') })).result).toEqual({ tasks: [], nextPageToken: '', pageSize: 50, totalSize: 0 });
  });

  it('gets and lists a task whose events are no longer kept by what its turn stored: its state, times, answer and history', async () => {
    const id = newSessionId('a2a-pruned');
    const parts = [{ text: 'calculate 2+2' }, { url: 'https://example.com/sum.png', mediaType: 'image/png' }];
    const sent = (await a2a('SendMessage', { message: { contextId: id, parts } })).result.task;
    expect(sent.history).toEqual([{ messageId: `${sent.id}/user/1`, contextId: id, taskId: sent.id, role: 'ROLE_USER', parts: [{ text: 'calculate 2+2' }, { url: 'https://example.com/sum.png' }] }]);
    const [listed] = (await list(id)).turns;
    // Its log pruned as a day later (or 64 turns later) would have it.
    await runInDurableObject(env.SESSIONS.getByName(sessionObjectName('local', id)), async (_instance, state) => {
      state.storage.sql.exec('UPDATE turns SET ended_at = ended_at - 2 * 86400000 WHERE turn_id = ?', listed!.turnId);
      new TurnStore(state.storage, new SessionMeta(state.storage)).prune(Date.now() - 86_400_000, 64);
    });
    expect((await fetchWorker(`/sessions/${id}/turns/${listed!.turnId}/events`)).status).toBe(410);
    const got = (await a2a('GetTask', { id: sent.id })).result;
    const answer = sent.artifacts[0].parts[0].text;
    expect(answer).toContain('calculator: 4');
    expect(got).toEqual({
      id: sent.id,
      contextId: id,
      status: { state: 'TASK_STATE_COMPLETED', message: { messageId: `${sent.id}/status`, contextId: id, taskId: sent.id, role: 'ROLE_AGENT', parts: [{ text: answer }] }, timestamp: new Date(Date.parse(listed!.endedAt!) - 2 * 86_400_000).toISOString() },
      artifacts: [{ artifactId: 'answer', name: 'answer', parts: [{ text: answer }] }],
      // The user's messages its turn brought, read from the session's messages as its events told them.
      history: sent.history,
    });
    expect((await a2a('ListTasks', { contextId: id, includeArtifacts: true })).result.tasks).toEqual([got]);
    expect((await a2a('GetTask', { id: sent.id, historyLength: 0 })).result.history).toEqual([]);
  });

  it('refuses bad params with -32602 naming them, leaves the context as it was, and is v1.0’s only', async () => {
    const { id } = await sessionOfEveryEnd('a2a-list-bad');
    const before = (await a2a('ListTasks', { contextId: id })).result;
    const refusals: [unknown, RegExp][] = [
      [{}, /^Invalid params: params\.contextId: required/],
      [{ contextId: 'not a session' }, /params\.contextId: Session ids are/],
      [{ contextId: id, pageSize: 0 }, /params\.pageSize: Too small/],
      [{ contextId: id, pageSize: 101 }, /params\.pageSize/],
      [{ contextId: id, pageToken: 'abc' }, /params\.pageToken: not one this agent gave/],
      [{ contextId: id, status: 'done' }, /params\.status: not a task state/],
      [{ contextId: id, status: 9 }, /params\.status: not a task state/],
      [{ contextId: id, status: 'UNRECOGNIZED' }, /params\.status: not a task state/],
      [{ contextId: id, statusTimestampAfter: 'yesterday' }, /params\.statusTimestampAfter: Invalid ISO datetime/],
      [{ contextId: id, historyLength: -1 }, /params\.historyLength/],
    ];
    for (const [params, message] of refusals) {
      const answer = await a2a('ListTasks', params);
      expect(answer, JSON.stringify(params)).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32602, message: expect.stringMatching(message) } });
    }
    expect((await a2a('ListTasks', { contextId: id }, '0.3')).error.code).toBe(-32601);
    expect((await a2a('ListTasks', { contextId: id })).result).toEqual(before);
  });
});
