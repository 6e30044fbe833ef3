/**
 * Storage that neither loses nor bloats: a message larger than a row is stored whole and read back
 * byte for byte; a turn's events are packed into few rows; expired logs and keys are pruned.
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { sessionObjectName } from '../../src/http/session-stub';
import { SessionStore } from '../../src/session/store';
import { fetchWorker, history, newSessionId, turn, user } from '../helpers/api';

const stubFor = (sessionId: string) => env.SESSIONS.getByName(sessionObjectName('local', sessionId));

describe('storage', () => {
  it('stores a message over 2 MB whole, over several rows, and reads it back byte for byte', async () => {
    const id = newSessionId('big');
    await turn(id, { messages: [user('hello')] });
    // Multi-byte characters and surrogate pairs on every side of the row boundaries.
    const unit = 'ab€😀中';
    const content = unit.repeat(Math.ceil(3_000_000 / unit.length));
    const rows = await runInDurableObject(stubFor(id), async (_instance, state) => {
      new SessionStore(state.storage).appendMessage('turn_test', { role: 'user', content });
      return state.storage.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM message_parts').one().n;
    });
    expect(rows).toBeGreaterThanOrEqual(6);
    const stored = await history(id);
    const back = stored.at(-1);
    expect(back.role).toBe('user');
    // Compared as whole strings (a deep diff of megabytes takes the test runner minutes).
    expect(back.content.length).toBe(content.length);
    expect(back.content === content).toBe(true);
  });

  it('packs a turn’s events into few rows', async () => {
    const id = newSessionId('packed');
    const result = await turn(id, { messages: [user('calculate 1+2; what time is it')], stream: 'delta' });
    if (result.mode === 'none') throw new Error('expected a stream');
    const turnId = result.events[0]!.data.turnId;
    const rows = await runInDurableObject(stubFor(id), async (_instance, state) =>
      state.storage.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM turn_events WHERE turn_id = ?', turnId).one().n,
    );
    expect(Number(result.events.at(-1)!.id)).toBeGreaterThan(60);
    expect(rows).toBe(1);
  });

  it('prunes expired event logs and keys: the events are gone (410), the key runs anew', async () => {
    const id = newSessionId('prune');
    const send = (key: string) =>
      fetchWorker(`/sessions/${id}/turns`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify({ messages: [user('hello')] }),
      });
    const { turnId } = (await (await send('old-key')).json()) as { turnId: string };
    await runInDurableObject(stubFor(id), async (_instance, state) => {
      state.storage.sql.exec('UPDATE turns SET ended_at = ended_at - 2 * 86400000, started_at = started_at - 2 * 86400000 WHERE turn_id = ?', turnId);
      new SessionStore(state.storage).prune(Date.now() - 86_400_000, 64);
    });
    const gone = await fetchWorker(`/sessions/${id}/turns/${turnId}/events`);
    expect(gone.status).toBe(410);
    expect(((await gone.json()) as any).error.code).toBe('events_expired');
    const again = await send('old-key');
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    await again.arrayBuffer();
    expect(await history(id)).toHaveLength(4);
  });

  it('keeps the logs of the newest turns only', async () => {
    const id = newSessionId('keep');
    for (let index = 0; index < 4; index++) await turn(id, { messages: [user(`m${index}`)] });
    const kept = await runInDurableObject(stubFor(id), async (_instance, state) => {
      new SessionStore(state.storage).prune(0, 2);
      return state.storage.sql.exec<{ n: number }>('SELECT COUNT(DISTINCT turn_id) AS n FROM turn_events').one().n;
    });
    expect(kept).toBe(2);
  });
});
