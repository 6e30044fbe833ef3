/**
 * A user's own view, their export and their erasure (docs/users.md): `GET /users/me`, everything they
 * have as JSON lines (every branch of every session, notes and rules), and `DELETE /users/me`, after
 * which each old session is 404 and the list is empty, while the usage numbers stay.
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it, vi } from 'vitest';
import { HistoryStore } from '../../src/session/store/history';
import { sessionObject } from '../../src/users/owner';
import { userViewSchema } from '../../src/api/user-responses';
import { newSessionId } from '../helpers/api';
import { newUser, PRICED, usageSettles } from '../helpers/users';

const lines = (text: string) => text.trim().split('\n').map((line) => JSON.parse(line));

describe('GET /users/me', () => {
  it('tells the user who they are, how many sessions they have, today’s usage and their limits', async () => {
    const alice = await newUser('me');
    await alice.turn(newSessionId('one'), 'hello');
    await usageSettles(alice, 2);
    const me = userViewSchema.parse((await alice.json('/users/me')).body);
    expect(me).toMatchObject({ userId: alice.userId, sessionCount: 1, limits: { dailyTokens: 2000, dailyCostUsd: 0.5 } });
    expect(me.today).toMatchObject({ date: new Date().toISOString().slice(0, 10), usage: { calls: 2, inputTokens: 40, outputTokens: 4 } });
    expect(Date.parse(me.limits.resetAt) - Date.now()).toBeLessThanOrEqual(86_400_000);
    expect(me.jurisdiction).toBeUndefined();
  });
});

describe('GET /users/me/export', () => {
  it('streams every session with every branch’s messages, ids and parents, its notes and its rules, and nothing of another user', async () => {
    const alice = await newUser('exporter');
    const bob = await newUser('other');
    const first = newSessionId('first');
    const second = newSessionId('second');
    await alice.turn(first, 'one', { model: 'demo:demo' });
    // A second branch: the first message edited.
    await alice.turn(first, 'one, edited', { model: 'demo:demo', parentId: null });
    // A note (a permission granted for good: a rule too).
    await alice.turn(second, 'remember the code is 42', { model: 'demo:demo' });
    const call = (await alice.json(`/sessions/${second}`)).body.pendingToolCalls[0];
    const rule = { tool_name: 'memory_save', rule_content: '', behavior: 'allow' };
    const granted = await alice.json(`/sessions/${second}/turns`, {
      method: 'POST',
      body: JSON.stringify({ messages: [{ role: 'tool_permission', toolCallId: call.toolCallId, granted: true, rule }], stream: 'none', model: 'demo:demo' }),
    });
    expect(granted.status).toBe(200);
    await bob.turn(newSessionId('bobs'), 'secret of bob', { model: 'demo:demo' });

    const response = await alice.call('/users/me/export');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const exported = lines(await response.text());
    expect(JSON.stringify(exported)).not.toContain('secret of bob');
    const sessions = exported.filter((line) => line.type === 'session');
    expect(sessions.map((line) => line.sessionId).sort()).toEqual([first, second].sort());

    const firstMessages = exported.filter((line) => line.type === 'message' && line.sessionId === first);
    // Both branches: two user messages with no parent, each answered.
    expect(firstMessages.map((line) => [line.role, line.parentId ?? null])).toEqual([
      ['user', null],
      ['assistant', firstMessages[0].id],
      ['user', null],
      ['assistant', firstMessages[2].id],
    ]);
    expect(firstMessages[2].content).toBe('one, edited');
    expect(firstMessages.every((line) => typeof line.createdAt === 'string')).toBe(true);
    // Each session's lines follow its session line.
    const at = (type: string, sessionId: string) => exported.findIndex((line) => line.type === type && line.sessionId === sessionId);
    expect(at('session', first)).toBeLessThan(at('message', first));
    expect(exported.find((line) => line.type === 'note')).toMatchObject({ sessionId: second, text: 'the code is 42' });
    expect(exported.find((line) => line.type === 'rule')).toMatchObject({ sessionId: second, ...rule });
  });

  it('exports a long history page by page, whole', async () => {
    const alice = await newUser('long');
    const id = newSessionId('long');
    await alice.turn(id, 'message 0', { model: 'demo:demo' });
    // 250 more stored as turns would store them (the quota would stop that many real turns).
    await runInDurableObject(sessionObject(env, { userId: alice.userId }, id), async (_instance, state) => {
      const history = new HistoryStore(state.storage);
      for (let index = 1; index <= 250; index++) history.appendMessage('turn_bulk', { role: 'user', content: `message ${index}` });
    });
    const exported = lines(await (await alice.call('/users/me/export')).text());
    const messages = exported.filter((line) => line.type === 'message');
    expect(messages).toHaveLength(252);
    expect(messages.filter((line) => line.role === 'user').map((line) => line.content)).toEqual(Array.from({ length: 251 }, (_, index) => `message ${index}`));
    expect(new Set(messages.map((line) => line.id)).size).toBe(252);
  });
});

describe('DELETE /users/me', () => {
  it('erases every session of the caller, a running one included; keeps the usage numbers; touches nobody else', async () => {
    const alice = await newUser('leaver');
    const bob = await newUser('stayer');
    const ids = [newSessionId('a'), newSessionId('b'), newSessionId('c')];
    await alice.turn(ids[0]!, 'one');
    await alice.turn(ids[1]!, 'remember my address', { model: 'demo:demo' });
    await alice.turn(`${ids[0]}`, 'call agent_spawn {"agentId":"helper","task":"hello"}', { model: 'demo:demo' });
    // A turn still running when the erasure comes.
    const slow = alice.call(`/sessions/${ids[2]}/turns`, { method: 'POST', body: JSON.stringify({ messages: [{ role: 'user', content: 'slowly' }], model: 'openai:script/slow', stream: 'delta' }) });
    const running = await slow;
    const reading = running.text();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const bobs = newSessionId('bob');
    await bob.turn(bobs, 'hello');
    const before = await usageSettles(alice, (await alice.usage()).total.calls);

    // Three, and the sub-agent's; the running one is listed once it has run a little while.
    await vi.waitFor(async () => expect((await alice.sessions()).sessions).toHaveLength(4), { timeout: 3000, interval: 50 });
    const erased = await alice.json('/users/me', { method: 'DELETE' });
    expect(erased).toMatchObject({ status: 200, body: { deletedSessions: 4 } });
    await reading;

    for (const id of ids) expect((await alice.json(`/sessions/${id}`)).status).toBe(404);
    expect((await alice.sessions()).sessions).toEqual([]);
    expect((await alice.json('/users/me')).body.sessionCount).toBe(0);
    expect((await alice.call('/users/me/export')).status).toBe(200);
    expect(await (await alice.call('/users/me/export')).text()).toBe('');
    // The numbers stay (a cancelled call counts what it spent).
    const after = await alice.usage();
    expect(after.total.calls).toBeGreaterThanOrEqual(before.total.calls);
    // Bob's session is untouched; a second erasure finds nothing.
    expect((await bob.json(`/sessions/${bobs}`)).status).toBe(200);
    expect((await alice.json('/users/me', { method: 'DELETE' })).body).toEqual({ deletedSessions: 0 });
    // The ids start afresh.
    expect((await alice.turn(ids[0]!, 'again', { model: PRICED })).status).toBe(200);
    expect((await alice.sessions()).sessions.map((entry: any) => entry.sessionId)).toEqual([ids[0]]);
  });

  it('erases a session whose first turn ran while the user was erased, before the list knew of it', async () => {
    const alice = await newUser('racer');
    const id = newSessionId('late');
    const response = await alice.call(`/sessions/${id}/turns`, { method: 'POST', body: JSON.stringify({ messages: [{ role: 'user', content: 'slowly' }], model: 'openai:script/slow', stream: 'delta' }) });
    const reading = response.text();
    // At once: the list does not have the new session yet.
    expect((await alice.json('/users/me', { method: 'DELETE' })).body).toEqual({ deletedSessions: 0 });
    // Its turn goes on; when it tells the list, it learns it belongs to the erased past, and goes.
    await reading;
    await vi.waitFor(async () => expect((await alice.json(`/sessions/${id}`)).status).toBe(404), { timeout: 5000, interval: 50 });
    expect((await alice.sessions()).sessions).toEqual([]);
    // A session made after the erasure is listed as usual.
    await alice.turn(newSessionId('after'), 'hello', { model: PRICED });
    expect((await alice.sessions()).sessions).toHaveLength(1);
  });
});
