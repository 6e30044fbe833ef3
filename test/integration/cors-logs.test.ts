/**
 * Browser access and operations (issue 10, points 4 and 5): CORS for the configured origins with an
 * `OPTIONS` preflight on every route, and the structured JSON logs of requests and turns.
 */
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { callWorker, newSessionId, settleWorkerCalls, waitIdle } from '../helpers/api';

function call(path: string, init: RequestInit = {}, vars: Record<string, string> = {}): Promise<Response> {
  return callWorker(new Request(`http://localhost${path}`, init), { ...env, ...vars });
}

const APP = 'https://app.example.com';
const ALLOWED = { CORS_ORIGINS: `${APP}, http://localhost:5173` };
const preflight = (path: string, origin: string, vars: Record<string, string>) =>
  call(path, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' } }, vars);

/** Every route of every door, as a browser would call it. */
const ROUTES = [
  '/sessions/s1/turns',
  '/sessions/s1/turns/turn_000000000000000000000000/events',
  '/sessions/s1/turns/turn_000000000000000000000000/cancel',
  '/sessions/s1/messages',
  '/sessions/s1',
  '/sessions/s1/ws',
  '/api/stream',
  '/ag-ui',
  '/healthz',
  '/openapi.json',
  '/a2a',
  '/.well-known/agent-card.json',
  '/mcp',
];
const ALLOW_HEADERS = 'authorization,content-encoding,content-type,idempotency-key,last-event-id,a2a-extensions,a2a-version,x-a2a-extensions,mcp-method,mcp-name,mcp-protocol-version,mcp-session-id';

describe('CORS', () => {
  it.each(ROUTES)('answers the preflight of %s for an allowed origin, and not for another', async (path) => {
    const allowed = await preflight(path, APP, ALLOWED);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(APP);
    expect(allowed.headers.get('access-control-allow-methods')).toBe('GET,POST,DELETE,OPTIONS');
    expect(allowed.headers.get('access-control-allow-headers')).toBe(ALLOW_HEADERS);
    expect(allowed.headers.get('access-control-max-age')).toBe('600');
    expect(allowed.headers.get('vary')).toContain('Origin');

    const other = await preflight(path, 'https://evil.example', ALLOWED);
    expect(other.status).toBe(204);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('allows the headers the doors’ clients send: A2A’s and MCP’s, and the Mcp-Param-* headers a tool names', async () => {
    const asked = (headers: string) => call('/mcp', { method: 'OPTIONS', headers: { origin: APP, 'access-control-request-method': 'POST', 'access-control-request-headers': headers } }, ALLOWED);
    const plain = await asked('a2a-version, content-type');
    expect(plain.headers.get('access-control-allow-headers')).toBe(ALLOW_HEADERS);
    const params = await asked('mcp-protocol-version, Mcp-Param-Region, mcp-param-tenant, x-other');
    expect(params.headers.get('access-control-allow-headers')).toBe(`${ALLOW_HEADERS},mcp-param-region,mcp-param-tenant`);
    // A preflight of many is answered for a few dozen, never echoed whole.
    const many = await asked(Array.from({ length: 500 }, (_, index) => `mcp-param-p${index}`).join(', '));
    expect(many.headers.get('access-control-allow-headers')!.split(',')).toHaveLength(ALLOW_HEADERS.split(',').length + 32);
  });

  it('marks the answers of every route for an allowed origin: a stream, an error, and what a page may read', async () => {
    const sessionId = newSessionId('cors');
    const stream = await call(
      `/sessions/${sessionId}/turns`,
      { method: 'POST', headers: { origin: APP, 'content-type': 'application/json', 'idempotency-key': 'k1' }, body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], stream: 'delta' }) },
      ALLOWED,
    );
    expect(stream.headers.get('access-control-allow-origin')).toBe(APP);
    expect(stream.headers.get('access-control-expose-headers')).toBe('idempotent-replayed,retry-after,www-authenticate');
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(await stream.text()).toContain('event: turn_stop');

    const missing = await call('/sessions/nope-nope/messages', { headers: { origin: 'http://localhost:5173' } }, ALLOWED);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(missing.headers.get('x-error-code')).toBe('session_not_found');
  });

  it('allows every origin with "*", and none without CORS_ORIGINS', async () => {
    const any = await preflight('/sessions/s1/turns', 'https://anyone.example', { CORS_ORIGINS: '*' });
    expect(any.headers.get('access-control-allow-origin')).toBe('*');
    const none = await preflight('/sessions/s1/turns', APP, {});
    expect(none.status).toBe(204);
    expect(none.headers.get('access-control-allow-origin')).toBeNull();
    const plain = await call('/healthz', { headers: { origin: APP } });
    expect(plain.headers.get('access-control-allow-origin')).toBeNull();
    expect(await plain.json()).toEqual({ ok: true });
  });

  it('refuses a CORS_ORIGINS that is not origins as a configuration error', async () => {
    const response = await call('/sessions/s1/turns', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }) }, { CORS_ORIGINS: 'app.example.com/path' });
    expect(response.status).toBe(500);
    expect(((await response.json()) as any).error).toMatchObject({ code: 'configuration_error', message: expect.stringContaining('CORS_ORIGINS') });
  });
});

describe('structured logs', () => {
  afterEach(() => vi.restoreAllMocks());

  const records = (spy: { mock: { calls: unknown[][] } }) =>
    spy.mock.calls.flatMap(([line]) => {
      try {
        const record = JSON.parse(String(line));
        return record && typeof record === 'object' && 'kind' in record ? [record] : [];
      } catch {
        return [];
      }
    });

  it('logs each request and each turn as one JSON line: session, turn, user, model, usage, latency, error code', async () => {
    const spy = vi.spyOn(console, 'log');
    const sessionId = newSessionId('logs');
    const response = await call(`/sessions/${sessionId}/turns`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ messages: [{ role: 'user', content: 'calculate 1+1' }] }) });
    const body = (await response.json()) as { turnId: string };
    await waitIdle(sessionId);
    await call(`/sessions/${sessionId}/turns`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' });
    // A request's log line is written after its response, in a `waitUntil`.
    await settleWorkerCalls();

    const logged = records(spy);
    const turn = logged.find((record) => record.kind === 'turn' && record.turn === body.turnId);
    expect(turn).toEqual({
      level: 'info',
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      kind: 'turn',
      session: sessionId,
      turn: body.turnId,
      user: 'local',
      model: 'demo:demo',
      stopReason: 'end_turn',
      latencyMs: expect.any(Number),
      usage: { inputTokens: expect.any(Number), outputTokens: expect.any(Number), cachedInputTokens: 0, cacheWriteInputTokens: 0, reasoningTokens: 0 },
      modelCalls: 2,
    });
    const requests = logged.filter((record) => record.kind === 'request' && record.session === sessionId);
    expect(requests[0]).toMatchObject({ level: 'info', method: 'POST', path: `/sessions/${sessionId}/turns`, status: 200, user: 'local', latencyMs: expect.any(Number) });
    expect(requests.find((record) => record.status === 400)).toMatchObject({ errorCode: 'invalid_json' });
  });

  it('writes a path of megabytes by its first 512 characters', async () => {
    const spy = vi.spyOn(console, 'log');
    const path = `/sessions/${'p'.repeat(1_000_000)}`;
    expect((await call(path, { method: 'GET' })).status).toBe(400);
    await settleWorkerCalls();
    const line = records(spy).find((record) => record.kind === 'request' && typeof record.path === 'string' && record.path.startsWith('/sessions/ppp'));
    expect(line?.path).toBe(`${path.slice(0, 512)}…`);
  });

  it('writes a streamed turn’s request line once its stream has been sent, never while the client waits for it', async () => {
    const spy = vi.spyOn(console, 'log');
    const sessionId = newSessionId('logs-stream');
    const response = await call(`/sessions/${sessionId}/turns`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ messages: [{ role: 'user', content: 'hello' }], stream: 'delta' }) });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await waitIdle(sessionId);
    const lines = () => records(spy).filter((record) => record.kind === 'request' && record.method === 'POST' && record.session === sessionId);
    // The turn has ended in its session; its stream, unread, has not been sent: no line yet.
    expect(lines()).toEqual([]);
    expect(await response.text()).toContain('event: turn_stop');
    await settleWorkerCalls();
    expect(lines()).toEqual([expect.objectContaining({ path: `/sessions/${sessionId}/turns`, status: 200, user: 'local', latencyMs: expect.any(Number) })]);
  });

  it('writes a streamed turn’s request line when its client leaves, by cancelling the stream or by going away', async () => {
    const spy = vi.spyOn(console, 'log');
    const post = (sessionId: string, signal?: AbortSignal) =>
      call(`/sessions/${sessionId}/turns`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ messages: [{ role: 'user', content: 'demo:long' }], stream: 'delta' }), ...(signal ? { signal } : {}) });
    const lines = (sessionId: string) => records(spy).filter((record) => record.kind === 'request' && record.method === 'POST' && record.session === sessionId);

    const cancelled = newSessionId('logs-cancel');
    const reader = (await post(cancelled)).body!.getReader();
    await reader.read();
    await reader.cancel();
    const left = newSessionId('logs-left');
    const controller = new AbortController();
    await post(left, controller.signal);
    controller.abort();
    await settleWorkerCalls();
    expect(lines(cancelled)).toEqual([expect.objectContaining({ status: 200 })]);
    expect(lines(left)).toEqual([expect.objectContaining({ status: 200 })]);
    await waitIdle(cancelled);
    await waitIdle(left);
  });

  it('logs a failed turn with its error code', async () => {
    const spy = vi.spyOn(console, 'log');
    const sessionId = newSessionId('logs');
    await (await call(`/sessions/${sessionId}/turns`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ messages: [{ role: 'user', content: 'demo:error' }] }) })).json();
    await waitIdle(sessionId);
    expect(records(spy).find((record) => record.kind === 'turn' && record.session === sessionId)).toMatchObject({ level: 'warn', stopReason: 'error', errorCode: 'upstream_error' });
  });
});
