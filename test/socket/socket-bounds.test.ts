/**
 * The chat socket bounded as HTTP is: what waits staged for a completion is at most one turn
 * request's worth, every frame counts against the user's rate, a token's expiry is checked at every
 * frame, JSON is nested at most 64 deep, and the subprotocol a `101` selects is one the client offered.
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { sessionObjectName } from '../../src/http/session-stub';
import { describe, expect, it } from 'vitest';
import { admit } from '../../src/users/admission';
import { callWorker, history, newSessionId } from '../helpers/api';
import { openSocket } from '../helpers/socket';
import { mint, SECRET } from '../helpers/tokens';
import { partsOf } from '../helpers/session-parts';

const deployed = (vars: Record<string, string> = {}) => (path: string, init: RequestInit) =>
  callWorker(new Request(`https://agents.example.com${path}`, init), { ...env, AUTH_SECRET: SECRET, ...vars });

describe('the socket is bounded like HTTP', () => {
  it('stages at most 256 messages for one completion; the next is refused and nothing is lost', async () => {
    const id = newSessionId('staged');
    const socket = await openSocket(id);
    // One at a time: this pool's runtime may hand a burst of frames to the object out of order.
    for (let index = 0; index < 256; index++) {
      socket.send({ type: 'append_message', role: 'user', content: `m${index}`, request_id: `r${index}` });
      await socket.until('message_appended');
    }
    expect(socket.frames.filter((frame) => frame.type === 'error')).toEqual([]);
    socket.send({ type: 'append_message', role: 'user', content: 'one too many', request_id: 'r-over' });
    const [refused] = (await socket.until('error')).slice(-1);
    expect(refused).toMatchObject({ code: 'too_much_staged', request_id: 'r-over' });
    socket.send({ type: 'request_completion' });
    await socket.until('completion_done');
    const users = (await history(id)).filter((message) => message.role === 'user');
    expect(users).toHaveLength(256);
    expect(users.at(-1).content).toBe('m255');
  });

  it('stages at most one body’s worth of bytes', async () => {
    const socket = await openSocket(newSessionId('staged-bytes'));
    // Frames under the runtime's 1 MiB: eleven fit in 10 MiB, the twelfth does not.
    const big = 'x'.repeat(900_000);
    for (let index = 0; index < 11; index++) {
      socket.send({ type: 'append_message', role: 'user', content: big });
      await socket.until('message_appended');
    }
    socket.send({ type: 'append_message', role: 'user', content: big });
    expect((await socket.until('error')).at(-1)).toMatchObject({ code: 'too_much_staged' });
  });

  it('charges every frame against the user’s rate limit', async () => {
    const userId = `frames-${newSessionId()}`;
    const sessionId = newSessionId();
    const limited = deployed({ RATE_LIMIT_PER_MINUTE: '3' });
    // The session's object reads the deployment's limit from its own environment.
    await runInDurableObject(env.SESSIONS.getByName(sessionObjectName(userId, sessionId)), (instance) => {
      const door = partsOf<{ door: { host: { takeRate: () => Promise<void> } } }>(instance).door;
      const limitedEnv = { ...env, ...({ RATE_LIMIT_PER_MINUTE: '3' } as Record<string, string>) };
      door.host = { ...door.host, takeRate: async () => void (await admit(limitedEnv, { userId }, { callsModel: false })) };
    });
    // The upgrade takes one of the three; two frames take the rest.
    const socket = await openSocket(sessionId, { authorization: `Bearer ${await mint({ sub: userId })}` }, limited);
    socket.send({ type: 'append_message', role: 'user', content: 'one' });
    socket.send({ type: 'append_message', role: 'user', content: 'two' });
    await socket.until('message_appended');
    await socket.until('message_appended');
    socket.send({ type: 'append_message', role: 'user', content: 'three', request_id: 'r3' });
    expect((await socket.until('error')).at(-1)).toMatchObject({ code: 'rate_limited', request_id: 'r3' });
    // A stop is never refused for the rate: it answers that nothing runs.
    socket.send({ type: 'stop_completion', request_id: 'r4' });
    expect((await socket.until('error')).at(-1)).toMatchObject({ code: 'no_completion_running', request_id: 'r4' });
  });

  it('tells a socket whose token expired so, and closes it (4401)', async () => {
    // Valid for the upgrade with a margin a loaded machine needs (expiring within the second, the
    // token was at times already past when the upgrade came), then waited out.
    const exp = Math.floor(Date.now() / 1000) + 3;
    const token = await mint({ sub: 'short-lived', exp });
    const socket = await openSocket(newSessionId(), { authorization: `Bearer ${token}` }, deployed());
    await new Promise((resolve) => setTimeout(resolve, exp * 1000 - Date.now() + 100));
    socket.send({ type: 'append_message', role: 'user', content: 'still there?' });
    expect((await socket.until('error')).at(-1)).toMatchObject({ code: 'token_expired' });
    const closed = await socket.closed;
    expect(closed.code).toBe(4401);
    expect(socket.frames.some((frame) => frame.type === 'message_appended')).toBe(false);
  });

  it('refuses a frame nested too deep with an error frame', async () => {
    const socket = await openSocket(newSessionId('deep-frame'));
    socket.sendRaw(`{"type":"append_message","role":"user","content":"hi","extra":${'['.repeat(5000)}${']'.repeat(5000)}}`);
    expect((await socket.until('error')).at(-1)).toMatchObject({ code: 'invalid_json', message: expect.stringContaining('64 levels') });
  });
});

describe('subprotocols', () => {
  it('selects agent-chat when it is among those offered', async () => {
    const token = await mint({ sub: 'proto' });
    const socket = await openSocket(newSessionId(), { 'sec-websocket-protocol': `bearer.${token}, agent-chat` }, deployed());
    expect(socket.response.headers.get('sec-websocket-protocol')).toBe('agent-chat');
  });

  it('refuses an offer without agent-chat with a 400 and a sentence, rather than a 101 the browser drops', async () => {
    const token = await mint({ sub: 'proto' });
    for (const offer of [`bearer.${token}`, 'graphql-ws']) {
      const response = await deployed()(`/sessions/${newSessionId()}/ws`, { headers: { upgrade: 'websocket', 'sec-websocket-protocol': offer } });
      expect(response.status).toBe(400);
      const error = ((await response.json()) as any).error;
      expect(error.code).toBe('unsupported_subprotocol');
      expect(error.message).toContain('agent-chat');
    }
  });
});
