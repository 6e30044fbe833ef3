/**
 * A later step's model request leaves before its step is stored (docs/decisions.md, 44), and a
 * turn's first before its opening (43): at each request the session makes of the model, the rows its
 * history holds, read from inside the object as the request goes. After a tool's step the answer with
 * its call and the tool's result are not written yet; they follow a task later, and the turn's
 * history is whole at its end. A message steered in during the tool goes in that request too, still
 * in the session’s queue and not yet in its history. A read of the session meanwhile, or a chat
 * socket’s frame, waits for the opening: it never names a turn not yet stored, nor misses a new
 * session's first turn (a user's erasure passed it over, a fork took its id), nor takes an answer
 * the turn carried for one still owed.
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { LOCAL_USER } from '../../src/http/auth';
import { sessionObjectName } from '../../src/http/session-stub';
import { checkHistoryInvariants, history, jsonTurn, newSessionId, postTurn, readSse, session, turn, user } from '../helpers/api';
import { readUntil } from '../helpers/read-until';
import { partsOf } from '../helpers/session-parts';
import { turnRequestSchema } from '../../src/api/turn-request';
import type { Session } from '../../src/session/session';
import { readConfig } from '../../src/config';

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

const count = (storage: DurableObjectStorage, table: string) =>
  storage.sql.exec(`SELECT name FROM sqlite_master WHERE name = ?`, table).toArray().length === 0 ? 0 : Number(storage.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM ${table}`).one().n);

describe('the order of a turn’s model requests and its writes', () => {
  it('asks the model after a tool’s step before the step is stored, and stores it all the same', async () => {
    const id = newSessionId('later-step');
    expect((await turn(id, { messages: [user('hello')] })).status).toBe(200);
    const storage = await storageOf(id);
    const rows: number[] = [];
    const answer = await watchingRequests(() => rows.push(count(storage, 'messages')), () => turn(id, { messages: [user('compute it')], model: 'openai:script/calc' }));
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
      () => seen.push({ messages: count(storage, 'messages'), queued: count(storage, 'turn_queue') }),
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
      expect(count(state.storage, 'turn_queue')).toBe(0);
      expect(count(state.storage, 'turns')).toBe(2);
    });
  });
});

/**
 * Inside the session's object: a turn started by the turns API, and `body` run once the launcher has
 * started it, its model request gone and its opening a task away (the turn's id given), before the
 * turn's answer is awaited.
 */
async function inOpening(id: string, body: Record<string, unknown>, model: string, during: (session: Session, storage: DurableObjectStorage, turnId: string) => Promise<void>) {
  await runInDurableObject(env.SESSIONS.getByName(sessionObjectName(LOCAL_USER, id)), async (instance, state) => {
    const session = (instance as unknown as { session: Session }).session;
    const { runner } = partsOf(instance);
    const started = session.startTurn({ sessionId: id, request: turnRequestSchema.parse({ stream: 'none', ...body }), model });
    for (let tries = 0; tries < 1000 && runner.runningTurnId === undefined; tries++) await Promise.resolve();
    const turnId = runner.runningTurnId;
    expect(turnId).toBeDefined();
    await during(session, state.storage, turnId!);
    expect(await started).toMatchObject({ ok: true });
  });
}

describe('a read of the session while a turn’s opening is a task away', () => {
  it('waits for the opening: a new session’s first turn is found, and the turn its view names is stored', async () => {
    const id = newSessionId('opening-read');
    await inOpening(id, { messages: [user('hello')] }, 'openai:script/calc', async (session, storage, turnId) => {
      expect(count(storage, 'turns')).toBe(0);
      const view = await session.getSession(id);
      expect(view).toMatchObject({ ok: true, session: { sessionId: id, runningTurnId: turnId } });
      expect(Number(storage.sql.exec<{ n: number }>('SELECT count(*) AS n FROM turns WHERE turn_id = ?', turnId).one().n)).toBe(1);
    });
  });

  it('a user’s erasure waits for it too: a new session in its first turn’s opening is erased, not passed over', async () => {
    const id = newSessionId('opening-erase');
    await inOpening(id, { messages: [user('hello')] }, 'openai:script/calc', async (session, storage) => {
      expect(count(storage, 'turns')).toBe(0);
      expect(await session.eraseForUser()).toEqual({ ok: true, erased: true });
    });
    expect((await session(id)).status).toBe(404);
    await runInDurableObject(env.SESSIONS.getByName(sessionObjectName(LOCAL_USER, id)), (_instance, state) => {
      expect(count(state.storage, 'turns')).toBe(0);
      expect(count(state.storage, 'messages')).toBe(0);
    });
  });

  it('a fork into the session’s id waits for it too: the id is taken, where the copy would have gone under the turn', async () => {
    const sourceId = newSessionId('fork-source');
    await jsonTurn(sourceId, { messages: [user('hello from the source')] });
    const exported = await env.SESSIONS.getByName(sessionObjectName(LOCAL_USER, sourceId)).exportBranch(sourceId, undefined);
    if (!exported.ok) throw new Error('no copy');
    const { ok: _ok, body, ...header } = exported;
    const text = await new Response(body).text();
    const id = newSessionId('opening-fork');
    await inOpening(id, { messages: [user('hello')] }, 'openai:script/calc', async (session, storage) => {
      expect(count(storage, 'turns')).toBe(0);
      // A copy already read: its import reaches its checks within the opening's task.
      const forked = await session.importFork(id, { ...header, body: new Response(text).body! });
      expect(forked).toMatchObject({ ok: false, status: 409, body: { error: { code: 'session_exists' } } });
    });
    const kept = await history(id);
    expect(kept[0]).toEqual(user('hello'));
    expect(JSON.stringify(kept)).not.toContain('from the source');
  });

  it('a chat socket’s frame waits for it too: a call the turn answered is no longer owed to the socket', async () => {
    const id = newSessionId('opening-socket');
    const tools = [{ name: 'get_weather' }];
    await jsonTurn(id, { messages: [user('call get_weather {"city":"Paris"}')], tools });
    const [call] = (await session(id)).body.pendingToolCalls;
    expect(call).toMatchObject({ awaiting: 'client' });
    const answer = { messages: [{ role: 'tool', toolCallId: call.toolCallId, content: '18°C' }], tools };
    await inOpening(id, answer, readConfig(env).defaultModel, async (session, storage) => {
      expect(count(storage, 'turns')).toBe(1);
      // The same answer from a socket, in the task where the HTTP turn that carried it has started.
      const frames: unknown[] = [];
      const socket = { deserializeAttachment: () => ({ sessionId: id, userId: LOCAL_USER }), send: (text: string) => frames.push(JSON.parse(text)) };
      const frame = { type: 'append_message', role: 'tool', tool_call_id: call.toolCallId, content: 'again' };
      await session.webSocketMessage(socket as unknown as WebSocket, JSON.stringify(frame));
      expect(frames).toEqual([expect.objectContaining({ type: 'error', code: 'unknown_tool_call' })]);
      expect(count(storage, 'socket_staged')).toBe(0);
    });
  });
});
