/** `GET /sessions/:id`, paging of `GET /sessions/:id/messages`, and `DELETE /sessions/:id`. */
import { describe, expect, it } from 'vitest';
import { fetchWorker, history, newSessionId, session, storedMessages, turn, user } from '../helpers/api';

describe('session routes', () => {
  it('summarises a session: times, message count, pending calls, running', async () => {
    const id = newSessionId('summary');
    await turn(id, { messages: [user('remember to water the plants')] });
    const { status, body } = await session(id);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      sessionId: id,
      messageCount: 2,
      running: false,
      pendingToolCalls: [{ toolCallId: 'call_demo_1_0', name: 'memory_save', input: { text: 'to water the plants' }, awaiting: 'permission' }],
      lastTurn: { status: 'finished', stopReason: 'tool_use' },
    });
    expect(Date.parse(body.createdAt)).toBeLessThanOrEqual(Date.parse(body.updatedAt));
  });

  it('pages a long history with limit and the opaque next cursor, in order, without gaps', async () => {
    const id = newSessionId('pages');
    for (let index = 0; index < 6; index++) await turn(id, { messages: [user(`message ${index}`)] });
    const all = await storedMessages(id);
    expect(all).toHaveLength(12);

    const seen: any[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const response = await fetchWorker(`/sessions/${id}/messages?limit=5${cursor ? `&cursor=${cursor}` : ''}`);
      const page = (await response.json()) as { messages: any[]; next?: string };
      seen.push(...page.messages);
      cursor = page.next;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(all);
    expect(all.filter((m) => m.role === 'user').map((m) => m.content)).toEqual([0, 1, 2, 3, 4, 5].map((i) => `message ${i}`));
  });

  it('leaves next out on the last page', async () => {
    const id = newSessionId('last');
    await turn(id, { messages: [user('one')] });
    const body = (await (await fetchWorker(`/sessions/${id}/messages?limit=2`)).json()) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['messages']);
  });

  it('erases a session: afterwards it does not exist, and the id starts afresh', async () => {
    const id = newSessionId('erase');
    await turn(id, { messages: [user('remember secret')] });
    const deleted = await fetchWorker(`/sessions/${id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(204);
    expect((await session(id)).status).toBe(404);
    const fresh = await turn(id, { messages: [user('hello')] });
    expect(fresh.status).toBe(200);
    expect(await history(id)).toHaveLength(2);
    expect((await session(id)).body.pendingToolCalls).toEqual([]);
  });

  it('answers GET /healthz', async () => {
    const response = await fetchWorker('/healthz');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
  });
});
