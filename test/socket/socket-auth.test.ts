/**
 * The socket's upgrade: the same auth and ownership as the HTTP routes, the token in the header or as
 * a subprotocol entry (browsers cannot set headers), and a refusal a browser can read: an `error`
 * frame, then a close code of 4000 + the HTTP status with the reason.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { callWorker, fetchWorker, newSessionId } from '../helpers/api';
import { complete, openSocket } from '../helpers/socket';
import { mint, SECRET } from '../helpers/tokens';

/** The Worker as a deployment with AUTH_SECRET, on a public host. */
const deployed = (vars: Record<string, string> = {}) => (path: string, init: RequestInit) =>
  callWorker(new Request(`https://agents.example.com${path}`, init), { ...env, AUTH_SECRET: SECRET, ...vars });

describe('the socket upgrade', () => {
  it('takes the token as a subprotocol entry and selects agent-chat', async () => {
    const token = await mint({ sub: 'alice' });
    const socket = await openSocket(newSessionId(), { 'sec-websocket-protocol': `agent-chat, bearer.${token}` }, deployed());
    expect(socket.response.status).toBe(101);
    expect(socket.response.headers.get('sec-websocket-protocol')).toBe('agent-chat');
    const frames = await complete(socket, 'calculate 2*21');
    expect(frames.find((frame) => frame.type === 'tool_call')).toMatchObject({ result: '42' });
  });

  it('takes the token in the Authorization header', async () => {
    const socket = await openSocket(newSessionId(), { authorization: `Bearer ${await mint({ sub: 'bob' })}` }, deployed());
    expect(socket.response.headers.get('sec-websocket-protocol')).toBeNull();
    expect((await complete(socket, 'hello')).at(-1)).toEqual({ type: 'completion_done', finish_reason: 'stop' });
  });

  it.each([
    ['no token', async () => ({}), 'unauthorized'],
    ['a bad token', async () => ({ 'sec-websocket-protocol': 'agent-chat, bearer.not-a-jwt' }), 'unauthorized'],
    ['an expired token', async () => ({ authorization: `Bearer ${await mint({ sub: 'carol', exp: Math.floor(Date.now() / 1000) - 60 })}` }), 'token_expired'],
  ])('refuses %s: an error frame, then close 4401 with the reason', async (_label, headers, code) => {
    const socket = await openSocket(newSessionId(), await headers(), deployed());
    const [error] = await socket.until('error');
    expect(error).toMatchObject({ type: 'error', code, request_id: null });
    const closed = await socket.closed;
    expect(closed.code).toBe(4401);
    expect(closed.reason).toMatch(new RegExp(`^${code}: `));
    expect(new TextEncoder().encode(closed.reason).length).toBeLessThanOrEqual(123);
  });

  it('refuses a bad session id with 4400, and a spent rate limit with 4429', async () => {
    const token = await mint({ sub: 'dave' });
    const bad = await openSocket('bad id!', { authorization: `Bearer ${token}` }, deployed());
    expect((await bad.until('error'))[0]).toMatchObject({ code: 'invalid_session_id' });
    expect((await bad.closed).code).toBe(4400);

    const limited = deployed({ RATE_LIMIT_PER_MINUTE: '1' });
    const user = await mint({ sub: `limited-${newSessionId()}` });
    await openSocket(newSessionId(), { authorization: `Bearer ${user}` }, limited);
    const second = await openSocket(newSessionId(), { authorization: `Bearer ${user}` }, limited);
    expect((await second.until('error'))[0]).toMatchObject({ code: 'rate_limited' });
    expect((await second.closed).code).toBe(4429);
  });

  it('a session belongs to its user: the same id under another user is another session', async () => {
    const id = newSessionId();
    const alice = await openSocket(id, { authorization: `Bearer ${await mint({ sub: 'alice-2' })}` }, deployed());
    await complete(alice, 'remember the secret is 42');
    const mallory = await openSocket(id, { authorization: `Bearer ${await mint({ sub: 'mallory' })}` }, deployed());
    const frames = await complete(mallory, 'list notes');
    expect(JSON.stringify(frames)).not.toContain('secret');
    const view = await deployed()(`/sessions/${id}`, { headers: { authorization: `Bearer ${await mint({ sub: 'mallory' })}` } });
    expect(((await view.json()) as any).pendingToolCalls).toEqual([]);
  });

  it('without AUTH_SECRET, only pages on a loopback host and this server\'s port may open a socket (4403 for others)', async () => {
    // The tests' Worker answers at http://localhost (port 80): a page it serves has that port.
    const page = await openSocket(newSessionId(), { origin: 'http://127.0.0.1' });
    expect((await complete(page, 'hello')).at(-1)).toMatchObject({ type: 'completion_done' });
    for (const origin of ['https://evil.example', 'http://127.0.0.1:5173', 'http://localhost:8080']) {
      const elsewhere = await openSocket(newSessionId(), { origin });
      expect((await elsewhere.until('error'))[0]).toMatchObject({ code: 'origin_not_allowed' });
      expect((await elsewhere.closed).code).toBe(4403);
    }
    // An origin the deployment lists in CORS_ORIGINS may.
    const listed = await openSocket(newSessionId(), { origin: 'http://127.0.0.1:5173' }, (path, init) =>
      callWorker(new Request(`http://localhost${path}`, init), { ...env, ...({ CORS_ORIGINS: 'http://127.0.0.1:5173' } as Record<string, string>) }),
    );
    expect((await complete(listed, 'hello')).at(-1)).toMatchObject({ type: 'completion_done' });
    // With a secret, the token is what counts, whatever page holds it.
    const withToken = await openSocket(newSessionId(), { origin: 'https://app.example', authorization: `Bearer ${await mint({ sub: 'erin' })}` }, deployed());
    expect((await complete(withToken, 'hello')).at(-1)).toMatchObject({ type: 'completion_done' });
  });

  it('a plain GET is told to upgrade (426); other methods are not allowed (405)', async () => {
    const plain = await fetchWorker(`/sessions/${newSessionId()}/ws`);
    expect(plain.status).toBe(426);
    expect(((await plain.json()) as any).error.code).toBe('upgrade_required');
    const post = await fetchWorker(`/sessions/${newSessionId()}/ws`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(((await post.json()) as any).error.code).toBe('method_not_allowed');
  });
});
