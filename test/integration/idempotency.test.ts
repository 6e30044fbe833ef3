/**
 * Idempotent retries: a retry with the same Idempotency-Key runs nothing again; it returns the first
 * attempt's JSON or replays its events, and follows it while it still runs. The same key with another
 * body is a 422.
 */
import { describe, expect, it } from 'vitest';
import { fetchWorker, history, newSessionId, readSse, session, turn, user } from '../helpers/api';

function post(sessionId: string, body: unknown, key: string): Promise<Response> {
  return fetchWorker(`/sessions/${sessionId}/turns`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify(body),
  });
}

describe('Idempotency-Key', () => {
  it('returns the first JSON answer again, and runs nothing twice', async () => {
    const id = newSessionId('idem');
    const body = { messages: [user('calculate 6*7')] };
    const first = await post(id, body, 'key-1');
    const firstBody = await first.json();
    const retry = await post(id, body, 'key-1');
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await retry.json()).toEqual(firstBody);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect((await history(id)).map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });

  it('two attempts with one key sent at once: one turn runs, the other follows it, on a new session and on one with turns', async () => {
    // A turn stores its row after its model request (docs/decisions.md, 43): the second attempt waits for it.
    for (const earlier of [[], ['first']]) {
      const id = newSessionId('idem-race');
      for (const text of earlier) await turn(id, { messages: [user(text)] });
      const body = { messages: [user('calculate 2*21')] };
      const [a, b] = await Promise.all([post(id, body, 'key-race'), post(id, body, 'key-race')]);
      expect([a.status, b.status]).toEqual([200, 200]);
      const bodies = await Promise.all([a.json(), b.json()]);
      expect(bodies[1]).toEqual(bodies[0]);
      expect([a, b].filter((response) => response.headers.get('idempotent-replayed') === 'true')).toHaveLength(1);
      expect((await history(id)).filter((message) => message.role === 'user').map((message) => message.content)).toEqual([...earlier, 'calculate 2*21']);
    }
  });

  it('replays the events of a streamed turn, ids and all', async () => {
    const id = newSessionId('idem-sse');
    const body = { messages: [user('hello')], stream: 'delta' };
    const first = await readSse(await post(id, body, 'key-sse'));
    const again = await readSse(await post(id, body, 'key-sse'));
    expect(again).toEqual(first);
    expect(await history(id)).toHaveLength(2);
  });

  it('follows the first attempt while it still runs', async () => {
    const id = newSessionId('idem-live');
    const body = { messages: [user('slow')], stream: 'delta', model: 'openai:script/slow' };
    const firstResponse = await post(id, body, 'key-live');
    const retryResponse = await post(id, body, 'key-live');
    expect(retryResponse.status).toBe(200);
    const [first, retry] = await Promise.all([readSse(firstResponse), readSse(retryResponse)]);
    expect(retry).toEqual(first);
    expect(first.at(-1)?.data.stopReason).toBe('end_turn');
    expect(await history(id)).toHaveLength(2);
  });

  it('never runs a settled server tool twice', async () => {
    const id = newSessionId('idem-tool');
    await turn(id, { messages: [user('remember once')] });
    const grant = { messages: [{ role: 'tool_permission', toolCallId: 'call_demo_1_0', granted: true }] };
    const first = await (await post(id, grant, 'key-grant')).json();
    const retry = await (await post(id, grant, 'key-grant')).json();
    expect(retry).toEqual(first);
    const notes = await turn(id, { messages: [user('list notes')] });
    expect(JSON.stringify(notes)).toContain('1. once');
    expect(JSON.stringify(notes)).not.toContain('2. once');
  });

  it('422 for the same key with another body, and nothing changes', async () => {
    const id = newSessionId('idem-422');
    await (await post(id, { messages: [user('hello')] }, 'key-x')).arrayBuffer();
    const before = { history: await history(id), session: (await session(id)).body };
    const other = await post(id, { messages: [user('hello!')] }, 'key-x');
    expect(other.status).toBe(422);
    expect(((await other.json()) as any).error.code).toBe('idempotency_key_reused');
    expect({ history: await history(id), session: (await session(id)).body }).toEqual(before);
  });

  it('400 for a key that is not 1 to 255 visible ASCII characters', async () => {
    const id = newSessionId('idem-bad');
    for (const key of ['', 'has space', 'x'.repeat(256), 'clé']) {
      const response = await fetchWorker(`/sessions/${id}/turns`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify({ messages: [user('hi')] }),
      });
      expect(response.status).toBe(400);
      expect(((await response.json()) as any).error.code).toBe('invalid_idempotency_key');
    }
  });

  it('keys belong to their session: the same key elsewhere is a new request', async () => {
    const a = newSessionId('idem-a');
    const b = newSessionId('idem-b');
    await (await post(a, { messages: [user('hello')] }, 'shared')).arrayBuffer();
    const other = await post(b, { messages: [user('hello')] }, 'shared');
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    await other.arrayBuffer();
    expect(await history(b)).toHaveLength(2);
  });
});
