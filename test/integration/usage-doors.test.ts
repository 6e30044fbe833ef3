/**
 * Every model call counts for its user's usage (docs/users.md), through every door: the turns API,
 * the Harness, the chat socket, AG-UI, pi's `/api/stream`, sub-agents, titles and the summaries of
 * compaction. Storage is this file's own, so the local user's counters move only with its tests.
 */
import { describe, expect, it, vi } from 'vitest';
import { fetchWorker, newSessionId, readSse, turn, user } from '../helpers/api';
import { complete, openSocket } from '../helpers/socket';

const usage = async (): Promise<any> => (await fetchWorker('/usage')).json();
const calls = async (): Promise<number> => (await usage()).total.calls;

/** Runs `act`, then waits until the user's calls grew by exactly `more` (titles come after their turn). */
async function counts(more: number, act: () => Promise<unknown>): Promise<void> {
  const before = await calls();
  await act();
  await vi.waitFor(async () => expect(await calls()).toBe(before + more), { timeout: 8000, interval: 50 });
  // And no more than that, once everything has settled.
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(await calls()).toBe(before + more);
}

describe('usage through every door', () => {
  it('counts the turns API, the Harness, AG-UI and the socket: an answer and a title each', async () => {
    await counts(2, () => turn(newSessionId('api'), { messages: [user('hello')] }));
    await counts(2, async () => {
      const response = await fetchWorker('/harness/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sessionId: newSessionId('h'), userId: 'local', input: 'hello' }) });
      await response.text();
    });
    await counts(2, async () => {
      const response = await fetchWorker('/ag-ui', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ threadId: newSessionId('a'), runId: 'r', messages: [{ id: 'm', role: 'user', content: 'hello' }], tools: [], context: [], state: {}, forwardedProps: {} }),
      });
      await readSse(response);
    });
    await counts(2, async () => complete(await openSocket(newSessionId('ws')), 'hello'));
  });

  it('counts pi’s /api/stream call', async () => {
    await counts(1, async () => {
      const response = await fetchWorker('/api/stream', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: { provider: 'openai', id: 'replay/openai/gpt-4o-text-usage', api: 'openai-completions' }, context: { messages: [{ role: 'user', content: 'hi', timestamp: 1 }] }, options: {} }),
      });
      await response.text();
    });
  });

  it('counts a sub-agent’s calls and its title as the user’s', async () => {
    // The parent: its call, its answer, its title; the sub-agent: its answer, its title.
    await counts(5, () => turn(newSessionId('parent'), { messages: [user('call agent_spawn {"agentId":"helper","task":"hello"}')] }));
  });

  it('counts the summaries of compaction', async () => {
    const id = newSessionId('small');
    let compacted = false;
    for (let index = 0; index < 40 && !compacted; index++) {
      const before = await calls();
      const result = await turn(id, { messages: [user(`message ${index}: ${'lorem ipsum '.repeat(15)}`)], model: 'demo:small', stream: 'none' });
      if (result.mode !== 'none') throw new Error('expected a body');
      const body = result.body as any;
      compacted = (body.compacted ?? []).length > 0;
      // The turn's own calls (its summary's included), and the title after the first turn.
      const expected = body.usage.calls.length + (index === 0 ? 1 : 0);
      await vi.waitFor(async () => expect(await calls()).toBe(before + expected), { timeout: 8000, interval: 50 });
      if (compacted) expect(body.usage.calls.some((call: any) => call.purpose === 'compaction')).toBe(true);
    }
    expect(compacted).toBe(true);
  });
});
