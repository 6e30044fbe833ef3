/**
 * A later step's model request leaves before its step is stored (docs/decisions.md, 44), and a
 * turn's first before its opening (43): at each request the session makes of the model, the rows its
 * history holds, read from inside the object as the request goes. After a tool's step the answer with
 * its call and the tool's result are not written yet; they follow a task later, and the turn's
 * history is whole at its end.
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { LOCAL_USER } from '../../src/http/auth';
import { sessionObjectName } from '../../src/http/session-stub';
import { checkHistoryInvariants, history, newSessionId, turn, user } from '../helpers/api';

/** Runs `body` with each model request (to the stand-in's Chat Completions) marked by `mark`, called as the request goes. */
async function watchingRequests<T>(mark: () => void, body: () => Promise<T>): Promise<T> {
  const real = globalThis.fetch;
  globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    if (url.endsWith('/chat/completions')) mark();
    return real(input, init);
  }) as typeof fetch;
  try {
    return await body();
  } finally {
    globalThis.fetch = real;
  }
}

describe('the order of a turn’s model requests and its writes', () => {
  it('asks the model after a tool’s step before the step is stored, and stores it all the same', async () => {
    const id = newSessionId('later-step');
    expect((await turn(id, { messages: [user('hello')] })).status).toBe(200);
    let storage: DurableObjectStorage | undefined;
    await runInDurableObject(env.SESSIONS.getByName(sessionObjectName(LOCAL_USER, id)), (_instance, state) => {
      storage = state.storage;
    });
    const rows: number[] = [];
    const count = () => rows.push(Number(storage!.sql.exec<{ n: number }>('SELECT count(*) AS n FROM messages').one().n));
    const answer = await watchingRequests(count, () => turn(id, { messages: [user('compute it')], model: 'openai:script/calc' }));
    expect(answer.status).toBe(200);
    // Two rows before the turn. The first request goes before the turn's own user message is
    // stored; the second once it is, and before the answer with its call and the tool's result.
    expect(rows).toEqual([2, 3]);
    const stored = await history(id);
    expect(stored.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'tool', 'assistant']);
    checkHistoryInvariants(stored);
  });
});
