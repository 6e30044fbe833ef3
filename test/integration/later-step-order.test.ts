/**
 * A later step's model request leaves before its step is stored (docs/decisions.md, 44), and a
 * turn's first before its opening (43): at each request the session makes of the model, the rows its
 * history holds, read from inside the object as the request goes. After a tool's step the answer with
 * its call and the tool's result are not written yet; they follow a task later, and the turn's
 * history is whole at its end. A message steered in during the tool goes in that request too, still
 * in the session’s queue and not yet in its history. What the session's other doors do meanwhile:
 * `opening-window.test.ts`.
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { LOCAL_USER } from '../../src/http/auth';
import { sessionObjectName } from '../../src/http/session-stub';
import { checkHistoryInvariants, history, newSessionId, postTurn, readSse, session, turn, user } from '../helpers/api';
import { readUntil } from '../helpers/read-until';
import { rowCount } from '../helpers/rows';

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

/** The session's object's storage, read from inside it. */
async function storageOf(id: string): Promise<DurableObjectStorage> {
  let storage: DurableObjectStorage | undefined;
  await runInDurableObject(env.SESSIONS.getByName(sessionObjectName(LOCAL_USER, id)), (_instance, state) => {
    storage = state.storage;
  });
  return storage!;
}

describe('the order of a turn’s model requests and its writes', () => {
  it('asks the model after a tool’s step before the step is stored, and stores it all the same', async () => {
    const id = newSessionId('later-step');
    expect((await turn(id, { messages: [user('hello')] })).status).toBe(200);
    const storage = await storageOf(id);
    const rows: number[] = [];
    const answer = await watchingRequests(() => rows.push(rowCount(storage, 'messages')), () => turn(id, { messages: [user('compute it')], model: 'openai:script/calc' }));
    expect(answer.status).toBe(200);
    // Two rows before the turn. The first request goes before the turn's own user message is
    // stored; the second once it is, and before the answer with its call and the tool's result.
    expect(rows).toEqual([2, 3]);
    const stored = await history(id);
    expect(stored.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'tool', 'assistant']);
    checkHistoryInvariants(stored);
  });

  it('asks the model with a message steered in during the tool, before the message leaves the queue or is stored', async () => {
    const id = newSessionId('later-step-steer');
    expect((await turn(id, { messages: [user('hello')] })).status).toBe(200);
    const storage = await storageOf(id);
    const seen: { messages: number; queued: number }[] = [];
    const events = await watchingRequests(
      () => seen.push({ messages: rowCount(storage, 'messages'), queued: rowCount(storage, 'turn_queue') }),
      async () => {
        const response = await postTurn(id, { messages: [user('count it')], model: 'openai:script/count', stream: 'delta' });
        const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
        // `count_to` takes 450 ms: steered while it runs, the message waits for the step's end.
        const head = (await readUntil(reader, (parts) => parts.join('').includes('event: tool_call'), 'the tool call')).join('');
        expect((await postTurn(id, { messages: [user('and this')], ifBusy: 'steer' })).status).toBe(202);
        let rest = '';
        for (let next = await reader.read(); !next.done; next = await reader.read()) rest += next.value;
        return readSse(new Response(head + rest));
      },
    );
    expect(events.at(-1)).toMatchObject({ event: 'turn_stop', data: { stopReason: 'end_turn' } });
    // The second request carries the steered message: it is still queued and not stored, nor is the
    // tool's result (the answer with its call was stored as the tool began: it took its time).
    expect(seen).toEqual([
      { messages: 2, queued: 0 },
      { messages: 4, queued: 1 },
    ]);
    const stored = await history(id);
    expect(stored.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'tool', 'user', 'assistant']);
    expect(stored[5]!.content).toBe('and this');
    checkHistoryInvariants(stored);
    // Out of the queue at the step's end, the message's queued turn forgotten.
    expect((await session(id)).body.queuedTurns).toEqual([]);
    await runInDurableObject(env.SESSIONS.getByName(sessionObjectName(LOCAL_USER, id)), (_instance, state) => {
      expect(rowCount(state.storage, 'turn_queue')).toBe(0);
      expect(rowCount(state.storage, 'turns')).toBe(2);
    });
  });
});
