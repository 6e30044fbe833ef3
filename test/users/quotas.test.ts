/**
 * The daily quotas (docs/users.md): a user at or over USER_DAILY_TOKENS (2,000 here) or
 * USER_DAILY_COST_USD ($0.50 here) gets `429 quota_exceeded` with `Retry-After` before any model call,
 * on every door in its own form; a running turn that crosses the line stops before its next call with
 * its work kept. The other user goes on.
 */
import { describe, expect, it } from 'vitest';
import { newSessionId, readSse } from '../helpers/api';
import { CALL_USD, newUser, PRICED, usageSettles, type TestUser } from '../helpers/users';

/** About 2,100 tokens of input for the demo model (four characters a token): one call crosses 2,000. */
const PADDING = `\n${'padding '.repeat(1050)}`;

function expectQuota(response: { status: number; headers: Headers; body: any }, unit: 'tokens' | 'usd') {
  expect(response.status).toBe(429);
  expect(response.body.error.code).toBe('quota_exceeded');
  const retryAfter = Number(response.headers.get('retry-after'));
  const midnight = Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`) + 86_400_000;
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(Math.abs(retryAfter - (midnight - Date.now()) / 1000)).toBeLessThan(5);
  expect(response.body.error.details).toMatchObject({ unit, limit: unit === 'tokens' ? 2000 : 0.5, resetAt: new Date(midnight).toISOString() });
  expect(response.body.error.details.used).toBeGreaterThanOrEqual(unit === 'tokens' ? 2000 : 0.5);
}

async function overTokens(user: TestUser): Promise<string> {
  const id = newSessionId('big');
  const answer = await user.turn(id, `hello${PADDING}`, { model: 'demo:demo' });
  expect(answer.status).toBe(200);
  expect(answer.body.usage.inputTokens).toBeGreaterThan(2000);
  return id;
}

describe('daily quotas', () => {
  it('refuses every door with 429 quota_exceeded once the tokens are spent; the other user goes on', async () => {
    const alice = await newUser('heavy');
    const bob = await newUser('light');
    const id = await overTokens(alice);

    expectQuota(await alice.turn(id, 'more'), 'tokens');
    expectQuota(await alice.turn(newSessionId('new'), 'more'), 'tokens');
    expectQuota(await alice.json('/harness/chat', { method: 'POST', body: JSON.stringify({ sessionId: newSessionId('h'), userId: alice.userId, input: 'hi' }) }), 'tokens');
    expectQuota(
      await alice.json('/ag-ui', {
        method: 'POST',
        body: JSON.stringify({ threadId: newSessionId('a'), runId: 'r', messages: [{ id: 'm', role: 'user', content: 'hi' }], tools: [], context: [], state: {}, forwardedProps: {} }),
      }),
      'tokens',
    );
    // pi's proxy: its own error shape, a string.
    const pi = await alice.call('/api/stream', {
      method: 'POST',
      body: JSON.stringify({ model: { provider: 'openai', id: 'replay/openai/gpt-4o-text-usage', api: 'openai-completions' }, context: { messages: [{ role: 'user', content: 'hi', timestamp: 1 }] }, options: {} }),
    });
    expect(pi.status).toBe(429);
    expect(pi.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(((await pi.json()) as any).error).toMatch(/^This user has spent \d+ of its 2000 tokens for today/);
    // The socket: an error frame with the code, and nothing staged runs.
    const socket = await alice.socket(newSessionId('ws'));
    socket.send({ type: 'append_message', role: 'user', content: 'hi' });
    await socket.until('message_appended');
    socket.send({ type: 'request_completion', request_id: 'q1' });
    const [frame] = await socket.until('error');
    expect(frame).toMatchObject({ type: 'error', code: 'quota_exceeded', request_id: 'q1' });

    // Nothing was stored by the refused requests.
    expect((await alice.json(`/sessions/${id}/messages`)).body.messages).toHaveLength(2);
    // Cancel, reads and deletes are not model calls.
    expect((await alice.json(`/sessions/${id}`)).status).toBe(200);
    expect((await alice.call(`/sessions/${id}`, { method: 'DELETE' })).status).toBe(204);

    expect((await bob.turn(newSessionId('b'), 'hello')).status).toBe(200);
  });

  it('stops a running turn that crosses the line before its next model call, its work kept', async () => {
    const alice = await newUser('crosser');
    const id = newSessionId('cross');
    const answer = await alice.turn(id, `calculate 2+3${PADDING}`, { model: 'demo:demo' });
    expect(answer.status).toBe(200);
    expect(answer.body.stopReason).toBe('max_tokens');
    expect(answer.body.error).toMatchObject({ code: 'quota_exceeded', message: expect.stringMatching(/tokens for today \(UTC\)/) });
    // The tool ran, and its result is in the history: the next day's turn goes on from it.
    const stored = (await alice.json(`/sessions/${id}/messages`)).body.messages;
    expect(stored.map((message: any) => message.role)).toEqual(['user', 'assistant', 'tool']);
    expect(stored[2].content).toBe('5');
    const usage = await usageSettles(alice, 1);
    expect(usage.days[0]).toMatchObject({ model: 'demo:demo', calls: 1 });
  });

  it('counts cost against USER_DAILY_COST_USD, from PRICES', async () => {
    const alice = await newUser('rich');
    const id = newSessionId('cost');
    const budget = Math.ceil(0.5 / CALL_USD);
    let turns = 0;
    for (;;) {
      const answer = await alice.turn(id, `turn ${turns}`, { model: PRICED });
      if (answer.status === 429) {
        expectQuota(answer, 'usd');
        break;
      }
      expect(answer.status).toBe(200);
      turns++;
      expect(turns).toBeLessThanOrEqual(budget);
    }
    // The answers and the title: the last call crossed $0.50.
    const usage = await usageSettles(alice, turns + 1);
    expect(usage.total.costUsd).toBeGreaterThanOrEqual(0.5);
    expect(usage.total.costUsd).toBeLessThan(0.5 + 2 * CALL_USD);
  });

  it('stops a sub-agent before its model call when its user is over', async () => {
    const alice = await newUser('parent');
    const id = newSessionId('spawner');
    const answer = await alice.turn(id, `call agent_spawn {"agentId":"helper","task":"calculate 2*3"}${PADDING}`, { model: 'demo:demo' });
    expect(answer.status).toBe(200);
    // The parent's first call crossed the line: the sub-agent could not start, and the parent stopped before its next call.
    const result = answer.body.messages.find((message: any) => message.role === 'tool');
    expect(result.content).toMatch(/The sub-agent could not start: This user has spent/);
    expect(answer.body.error.code).toBe('quota_exceeded');
  });

  it('ends a queued turn with quota_exceeded when its user went over while it waited', async () => {
    const alice = await newUser('queuer');
    const id = newSessionId('queued');
    const slow = await alice.call(`/sessions/${id}/turns`, { method: 'POST', body: JSON.stringify({ messages: [{ role: 'user', content: 'slowly' }], model: 'openai:script/slow', stream: 'delta' }) });
    const reading = slow.text();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const queued = await alice.json(`/sessions/${id}/turns`, { method: 'POST', body: JSON.stringify({ messages: [{ role: 'user', content: 'next' }], model: PRICED, ifBusy: 'enqueue' }) });
    expect(queued).toMatchObject({ status: 202, body: { status: 'queued' } });
    // Meanwhile another session of hers spends the day's tokens.
    await overTokens(alice);
    await reading;
    const events = await readSse(await alice.call(`/sessions/${id}/turns/${queued.body.turnId}/events`));
    expect(events.at(-1)).toMatchObject({ event: 'turn_stop', data: { stopReason: 'error', error: { code: 'quota_exceeded' } } });
    // Nothing of it was stored: the history holds the slow turn alone.
    expect((await alice.json(`/sessions/${id}/messages`)).body.messages.map((message: any) => message.content)).toContain('slowly');
    expect((await alice.json(`/sessions/${id}/messages`)).body.messages).toHaveLength(2);
  });
});
