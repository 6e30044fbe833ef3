/**
 * Authentication and ownership: bearer JWTs (HS256, `sub`, `exp`, `nbf`) against AUTH_SECRET; a
 * session belongs to its user; without a secret only loopback requests are served; the per-user
 * rate limit on POST requests.
 */
import { env } from 'cloudflare:workers';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { callWorker, newSessionId, readSse } from '../helpers/api';
import { mint, SECRET } from '../helpers/tokens';
import { RateBucket } from '../../src/users/rate-bucket';

function call(path: string, init: RequestInit & { token?: string; host?: string; vars?: Record<string, string> } = {}) {
  const { token, host = 'https://agents.example.com', vars = {}, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (token) headers.set('authorization', `Bearer ${token}`);
  if (rest.body) headers.set('content-type', 'application/json');
  const request = new Request(`${host}${path}`, { ...rest, headers });
  return callWorker(request, { ...env, AUTH_SECRET: SECRET, ...vars });
}

async function expectError(response: Response, status: number, code: string) {
  expect(response.status).toBe(status);
  const body = (await response.json()) as { error: { code: string; message: string } };
  expect(body.error.code).toBe(code);
  return { body, response };
}

const turnBody = (text: string) => JSON.stringify({ messages: [{ role: 'user', content: text }] });

describe('authentication', () => {
  it('401 with a challenge when the token is missing', async () => {
    const { response } = await expectError(await call(`/sessions/a`), 401, 'unauthorized');
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
  });

  it.each([
    ['a token signed with another secret', () => mint({ sub: 'u', secret: 'another-secret-0123456789abcdef' }), 'unauthorized'],
    ['a token of another algorithm', () => mint({ sub: 'u', alg: 'HS512' }), 'unauthorized'],
    ['an expired token', () => mint({ sub: 'u', exp: Math.floor(Date.now() / 1000) - 60 }), 'token_expired'],
    ['a token not valid yet', () => mint({ sub: 'u', nbf: Math.floor(Date.now() / 1000) + 600 }), 'token_not_yet_valid'],
    ['a token without sub', () => mint({}), 'unauthorized'],
    ['a token without exp (one that never expires)', () => mint({ sub: 'u', exp: null }), 'unauthorized'],
    ['something that is not a JWT', async () => 'not-a-jwt', 'unauthorized'],
  ])('401 for %s', async (_label, token, code) => {
    await expectError(await call(`/sessions/a`, { token: await token() }), 401, code);
  });

  it('says which claim is wrong: an exp that is not a number is not a missing one', async () => {
    const token = await new SignJWT({ sub: 'u', exp: 'tomorrow' as unknown as number }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(SECRET));
    const { body } = await expectError(await call(`/sessions/a`, { token }), 401, 'unauthorized');
    expect(body.error.message).toBe('The token\'s "exp" claim is not a number (seconds since the epoch).');
    const { body: missing } = await expectError(await call(`/sessions/a`, { token: await mint({ sub: 'u', exp: null }) }), 401, 'unauthorized');
    expect(missing.error.message).toBe('The token has no "exp" claim: tokens must expire.');
  });

  it('serves a valid token as its sub', async () => {
    const id = newSessionId('auth');
    const token = await mint({ sub: 'alice' });
    expect((await call(`/sessions/${id}/turns`, { method: 'POST', body: turnBody('hi'), token })).status).toBe(200);
    expect((await call(`/sessions/${id}`, { token })).status).toBe(200);
  });

  it('without AUTH_SECRET serves loopback hosts as the local user, and refuses any other host', async () => {
    const vars = { AUTH_SECRET: '' };
    const { body } = await expectError(await call('/sessions/a', { vars }), 401, 'auth_not_configured');
    expect(body.error.message).toContain('AUTH_SECRET');
    for (const host of ['http://127.0.0.1:8787', 'http://localhost:8787', 'http://[::1]:8787']) {
      const response = await call(`/sessions/${newSessionId('loop')}/turns`, { method: 'POST', body: turnBody('hi'), host, vars });
      expect(response.status).toBe(200);
      await response.arrayBuffer();
    }
  });
});

describe('the secret and the peer', () => {
  it('refuses every request with 401 auth_misconfigured while AUTH_SECRET is under 32 bytes, and says why', async () => {
    const short = 'x'.repeat(31);
    const token = await mint({ sub: 'u', secret: short });
    const { body } = await expectError(await call('/sessions/a', { token, vars: { AUTH_SECRET: short } }), 401, 'auth_misconfigured');
    expect(body.error.message).toMatch(/AUTH_SECRET is too short.*32 bytes/);
    const long = 'x'.repeat(32);
    expect((await call(`/sessions/${newSessionId()}`, { token: await mint({ sub: 'u', secret: long }), vars: { AUTH_SECRET: long } })).status).toBe(404);
  });

  it('without AUTH_SECRET, serves a loopback host only to a local peer', async () => {
    const vars = { AUTH_SECRET: '' };
    const host = 'http://127.0.0.1:8787';
    for (const peer of ['127.0.0.1', '::1']) {
      expect((await call(`/sessions/${newSessionId()}`, { host, vars, headers: { 'cf-connecting-ip': peer } })).status).toBe(404);
    }
    for (const peer of ['203.0.113.9', '2001:db8::1']) {
      await expectError(await call('/sessions/a', { host, vars, headers: { 'cf-connecting-ip': peer } }), 401, 'auth_not_configured');
    }
  });
});

describe('ownership', () => {
  it('gives another user with the same session id a different, empty session that cannot touch the first', async () => {
    const id = newSessionId('owned');
    const alice = await mint({ sub: 'alice' });
    const mallory = await mint({ sub: 'mallory' });
    await (await call(`/sessions/${id}/turns`, { method: 'POST', body: turnBody('remember my secret'), token: alice })).arrayBuffer();
    const aliceHistory = await (await call(`/sessions/${id}/messages`, { token: alice })).json();

    await expectError(await call(`/sessions/${id}`, { token: mallory }), 404, 'session_not_found');
    await expectError(await call(`/sessions/${id}/messages`, { token: mallory }), 404, 'session_not_found');
    await expectError(await call(`/sessions/${id}`, { method: 'DELETE', token: mallory }), 404, 'session_not_found');
    // Alice's pending permission cannot be answered by Mallory.
    await expectError(
      await call(`/sessions/${id}/turns`, {
        method: 'POST',
        token: mallory,
        body: JSON.stringify({ messages: [{ role: 'tool_permission', toolCallId: 'call_demo_1_0', granted: true }] }),
      }),
      400,
      'unknown_tool_call',
    );
    const own = await call(`/sessions/${id}/turns`, { method: 'POST', body: turnBody('hello'), token: mallory });
    expect(own.status).toBe(200);
    await own.arrayBuffer();
    const malloryHistory = (await (await call(`/sessions/${id}/messages`, { token: mallory })).json()) as { messages: unknown[] };
    expect(malloryHistory.messages).toHaveLength(2);

    expect(await (await call(`/sessions/${id}/messages`, { token: alice })).json()).toEqual(aliceHistory);
    const summary = (await (await call(`/sessions/${id}`, { token: alice })).json()) as { pendingToolCalls: unknown[] };
    expect(summary.pendingToolCalls).toHaveLength(1);
  });
});

describe('rate limit', () => {
  it('429 with Retry-After once a user has spent the minute, per user, for POST only', async () => {
    const vars = { RATE_LIMIT_PER_MINUTE: '3' };
    const token = await mint({ sub: `busy-${newSessionId()}` });
    const id = newSessionId('rl');
    for (let index = 0; index < 3; index++) {
      const response = await call(`/sessions/${id}/turns`, { method: 'POST', body: turnBody('hi'), token, vars });
      expect(response.status).toBe(200);
      await response.arrayBuffer();
    }
    const { response, body } = await expectError(await call(`/sessions/${id}/turns`, { method: 'POST', body: turnBody('hi'), token, vars }), 429, 'rate_limited');
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((body.error as any).details.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect((await call(`/sessions/${id}`, { token, vars })).status).toBe(200);

    const other = await mint({ sub: `calm-${newSessionId()}` });
    const response2 = await call(`/sessions/${newSessionId('rl2')}/turns`, { method: 'POST', body: turnBody('hi'), token: other, vars });
    expect(response2.status).toBe(200);
    await response2.arrayBuffer();
  });

  it('refills over time', () => {
    const bucket = new RateBucket();
    const start = 1_000_000;
    expect(bucket.take(2, start).ok).toBe(true);
    expect(bucket.take(2, start).ok).toBe(true);
    expect(bucket.take(2, start)).toEqual({ ok: false, retryAfterSeconds: 30 });
    expect(bucket.take(2, start + 30_000).ok).toBe(true);
  });
});

describe('streams through the authenticated door', () => {
  it('streams a turn for a token holder', async () => {
    const token = await mint({ sub: 'streamer' });
    const response = await call(`/sessions/${newSessionId('st')}/turns`, {
      method: 'POST',
      token,
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], stream: 'delta' }),
    });
    const events = await readSse(response);
    expect(events.at(-1)?.event).toBe('turn_stop');
  });
});
