/**
 * Users (docs/users.md): each user's list of sessions through every door, their usage per day and
 * model with costs from PRICES, the daily quotas on every door, `/users/me`, the export and the
 * erasure. Two users in every test: what one does, the other never sees.
 */
import { describe, expect, it, vi } from 'vitest';
import { sessionListSchema, usageReportSchema } from '../../src/api/user-responses';
import { newSessionId, readSse } from '../helpers/api';
import { complete } from '../helpers/socket';
import { CALL_USD, newUser, PRICED, usageSettles } from '../helpers/users';

const today = () => new Date().toISOString().slice(0, 10);

describe('GET /sessions', () => {
  it('lists the caller’s sessions newest first, right after each door’s response, and nobody else’s', async () => {
    const alice = await newUser('alice');
    const bob = await newUser('bob');
    const ids = { json: newSessionId('json'), sse: newSessionId('sse'), harness: newSessionId('harness'), agui: newSessionId('agui'), socket: newSessionId('socket') };

    expect((await alice.turn(ids.json, 'one')).status).toBe(200);
    expect((await alice.sessions()).sessions.map((entry: any) => entry.sessionId)).toEqual([ids.json]);
    await alice.streamTurn(ids.sse, 'two');
    expect((await alice.sessions()).sessions[0].sessionId).toBe(ids.sse);
    const harness = await alice.call('/harness/chat', { method: 'POST', body: JSON.stringify({ sessionId: ids.harness, userId: alice.userId, input: 'three' }) });
    expect(harness.status).toBe(200);
    await harness.text();
    expect((await alice.sessions()).sessions[0].sessionId).toBe(ids.harness);
    const agui = await alice.call('/ag-ui', {
      method: 'POST',
      body: JSON.stringify({ threadId: ids.agui, runId: 'run-1', messages: [{ id: 'm1', role: 'user', content: 'four' }], tools: [], context: [], state: {}, forwardedProps: {} }),
    });
    await readSse(agui);
    expect((await alice.sessions()).sessions[0].sessionId).toBe(ids.agui);
    const socket = await alice.socket(ids.socket);
    await complete(socket, 'five');
    expect((await alice.sessions()).sessions[0].sessionId).toBe(ids.socket);

    const list = sessionListSchema.parse(await alice.sessions());
    expect(list.sessions.map((entry) => entry.sessionId)).toEqual([ids.socket, ids.agui, ids.harness, ids.sse, ids.json]);
    expect(list.sessions.find((entry) => entry.sessionId === ids.json)).toMatchObject({ messageCount: 2, running: false, pendingToolCalls: 0 });
    expect((await bob.sessions()).sessions).toEqual([]);
    // Bob cannot reach Alice's session either: the same id is his own, new, session.
    expect((await bob.json(`/sessions/${ids.json}`)).status).toBe(404);
  });

  it('pages with limit and the opaque next cursor, without gaps or repeats; a deleted session is gone at once', async () => {
    const alice = await newUser('pager');
    const made: string[] = [];
    for (let index = 0; index < 5; index++) {
      const id = newSessionId(`p${index}`);
      made.push(id);
      await alice.turn(id, `hello ${index}`, { model: 'demo:demo' });
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = sessionListSchema.parse(await alice.sessions(`?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`));
      expect(page.sessions.length).toBeLessThanOrEqual(2);
      seen.push(...page.sessions.map((entry) => entry.sessionId));
      cursor = page.next;
    } while (cursor);
    expect(seen).toEqual([...made].reverse());

    expect((await alice.call(`/sessions/${made[2]}`, { method: 'DELETE' })).status).toBe(204);
    expect((await alice.sessions()).sessions.map((entry: any) => entry.sessionId)).not.toContain(made[2]);
    // A new session of the same id is a new entry.
    await alice.turn(made[2]!, 'again', { model: 'demo:demo' });
    expect((await alice.sessions()).sessions[0]).toMatchObject({ sessionId: made[2], messageCount: 2 });
  });

  it('lists sub-agents’ sessions and forks with the session they came from', async () => {
    const alice = await newUser('family');
    const id = newSessionId('parent');
    const spawned = await alice.turn(id, 'call agent_spawn {"agentId":"helper","task":"calculate 2*3","expose_to_user":true}', { model: 'demo:demo' });
    expect(spawned.status).toBe(200);
    const fork = await alice.json(`/sessions/${id}/fork`, { method: 'POST', body: JSON.stringify({ sessionId: `${id}-fork` }) });
    expect(fork.status).toBe(201);
    const list = sessionListSchema.parse(await alice.sessions());
    const child = list.sessions.find((entry) => entry.sessionId.includes('.helper-'));
    expect(child).toMatchObject({ parentSessionId: id, messageCount: 4 });
    expect(list.sessions.find((entry) => entry.sessionId === `${id}-fork`)).toMatchObject({ parentSessionId: id });
    expect(list.sessions.find((entry) => entry.sessionId === id)?.parentSessionId).toBeUndefined();
  });

  it('shows a session waiting for a permission as not running, with its pending call', async () => {
    const alice = await newUser('waiting');
    const id = newSessionId('perm');
    const answer = await alice.turn(id, 'remember that the sky is blue', { model: 'demo:demo' });
    expect(answer.body.stopReason).toBe('tool_use');
    expect((await alice.sessions()).sessions[0]).toMatchObject({ sessionId: id, running: false, pendingToolCalls: 1 });
  });

  it('shows a session running while a turn lasts, and not once it ended', async () => {
    const alice = await newUser('runner');
    const id = newSessionId('slow');
    const response = await alice.call(`/sessions/${id}/turns`, { method: 'POST', body: JSON.stringify({ messages: [{ role: 'user', content: 'slowly' }], model: 'openai:script/slow', stream: 'delta' }) });
    const reading = response.text();
    await vi.waitFor(async () => expect((await alice.sessions()).sessions).toEqual([expect.objectContaining({ sessionId: id, running: true, messageCount: 0 })]), { timeout: 3000, interval: 50 });
    await reading;
    expect((await alice.sessions()).sessions).toEqual([expect.objectContaining({ sessionId: id, running: false, messageCount: 2 })]);
  });

  it('refuses a bad query with 400 and a wrong method with 405', async () => {
    const alice = await newUser('bad');
    for (const query of ['?limit=0', '?limit=101', '?limit=x', '?cursor=nope', '?other=1']) {
      const response = await alice.json(`/sessions${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body.error.code).toBe('invalid_query');
    }
    // The message names what is wrong, in one sentence: a parameter given twice, a cursor not from a page.
    expect((await alice.json('/sessions?limit=2&limit=3')).body.error.message).toBe('The query is not valid: limit is given more than once.');
    expect((await alice.json('/sessions?cursor=nope')).body.error.message).toBe('The query is not valid: cursor: The cursor is the "next" value of a previous page.');
    expect((await alice.json('/sessions', { method: 'POST', body: '{}' })).status).toBe(405);
    expect((await alice.json('/usage', { method: 'DELETE' })).status).toBe(405);
    expect((await alice.json('/users/me', { method: 'PUT', body: '{}' })).status).toBe(405);
    expect((await alice.json('/users/me/export', { method: 'POST', body: '{}' })).status).toBe(405);
    // Without a token, nothing.
    const { fetchWorker } = await import('../helpers/api');
    expect((await fetchWorker('/sessions')).status).toBe(401);
    expect((await fetchWorker('/usage')).status).toBe(401);
  });
});

describe('GET /usage', () => {
  it('counts every model call per day and model, the title’s included, with its cost from PRICES (null without a price)', async () => {
    const alice = await newUser('spender');
    const bob = await newUser('saver');
    await alice.turn(newSessionId('a'), 'hello');
    // The answer and, after it, the title: two calls of the priced model.
    const usage = usageReportSchema.parse(await usageSettles(alice, 2));
    expect(usage.days).toEqual([
      { date: today(), model: PRICED, calls: 2, inputTokens: 40, outputTokens: 4, cachedInputTokens: 0, cacheWriteInputTokens: 0, reasoningTokens: 0, costUsd: 2 * CALL_USD },
    ]);
    await alice.turn(newSessionId('b'), 'hello', { model: 'demo:demo', });
    const both = usageReportSchema.parse(await usageSettles(alice, 4));
    const demo = both.days.find((day) => day.model === 'demo:demo')!;
    expect(demo).toMatchObject({ calls: 2, costUsd: null });
    expect(demo.inputTokens).toBeGreaterThan(0);
    expect(both.total).toMatchObject({ calls: 4, inputTokens: 40 + demo.inputTokens, costUsd: 2 * CALL_USD });
    expect((await bob.usage()).total.calls).toBe(0);
  });

  it('counts pi’s /api/stream calls, which have no session', async () => {
    const alice = await newUser('pi');
    const response = await alice.call('/api/stream', {
      method: 'POST',
      body: JSON.stringify({ model: { provider: 'openai', id: 'replay/openai/gpt-4o-text-usage', api: 'openai-completions' }, context: { messages: [{ role: 'user', content: 'hi', timestamp: 1 }] }, options: {} }),
    });
    expect(response.status).toBe(200);
    await response.text();
    const usage = await usageSettles(alice, 1);
    expect(usage.days[0]).toMatchObject({ model: PRICED, calls: 1, inputTokens: 20, outputTokens: 2, costUsd: CALL_USD });
  });

  it('takes a range of UTC days, and refuses a bad one with 400', async () => {
    const alice = await newUser('range');
    expect((await alice.json('/usage?from=2026-01-01&to=2026-01-31')).body).toEqual({
      days: [],
      total: { calls: 0, inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, cacheWriteInputTokens: 0, reasoningTokens: 0, costUsd: null },
    });
    for (const query of ['?from=yesterday', '?from=2026-02-30', '?from=2026-03-02&to=2026-03-01', '?from=2020-01-01&to=2026-01-01', '?day=2026-01-01']) {
      const response = await alice.json(`/usage${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body.error.code).toBe('invalid_query');
    }
  });
});
