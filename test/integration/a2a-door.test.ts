/**
 * `POST /a2a` with what A2A's SDK client (test/clients/a2a-agent.clients.test.ts) never sends: each
 * bad request is answered as a JSON-RPC error, and runs nothing (the session it names stays unmade).
 */
import { describe, expect, it } from 'vitest';
import { fetchWorker, newSessionId, session } from '../helpers/api';

const post = (body: unknown, headers: Record<string, string> = {}) =>
  fetchWorker('/a2a', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
const answer = async (body: unknown) => {
  const response = await post(body);
  expect(response.status).toBe(200);
  return response.json<any>();
};

describe('the A2A door’s envelope', () => {
  it('refuses a body that is not JSON with Parse error, id null, as A2A’s own server does', async () => {
    for (const body of ['not json', '{"jsonrpc": "2.0", "id": 1,', '']) {
      expect(await answer(body)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the body is not JSON.' } });
    }
  });

  it('refuses a body of another media type unread, as A2A’s own server does, and makes no session', async () => {
    const contextId = newSessionId('a2a-type');
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { contextId, parts: [{ text: 'hi' }] } } });
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/jsonx']) {
      const response = await fetchWorker('/a2a', { method: 'POST', headers: { 'content-type': type }, body });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32005, message: `Unsupported Content-Type "${type}"; expected application/json.` } });
    }
    expect((await session(contextId)).status).toBe(404);
  });

  it('refuses a body that is not a JSON-RPC 2.0 request with Invalid Request, id null', async () => {
    for (const body of [{ id: 1, method: 'GetTask' }, { jsonrpc: '1.0', id: 1, method: 'GetTask' }, { jsonrpc: '2.0', id: 1 }, { jsonrpc: '2.0', id: {}, method: 'GetTask' }]) {
      expect(await answer(body)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Not a JSON-RPC 2.0 request.' } });
    }
  });

  it('answers a method it does not serve with Method not found, by the request’s id, null when it had none', async () => {
    expect(await answer({ jsonrpc: '2.0', id: 'r1', method: 'GetAgentSkills' })).toMatchObject({ id: 'r1', error: { code: -32601 } });
    expect(await answer({ jsonrpc: '2.0', method: 'Nope' })).toMatchObject({ id: null, error: { code: -32601 } });
    expect(await answer({ jsonrpc: '2.0', id: 2.5, method: 'Nope' })).toMatchObject({ id: 2.5, error: { code: -32601 } });
    // A method of megabytes is named by its first 64 characters, not sent back.
    expect(await answer({ jsonrpc: '2.0', id: 3, method: 'y'.repeat(1_000_000) })).toEqual({ jsonrpc: '2.0', id: 3, error: { code: -32601, message: `This agent does not serve "${'y'.repeat(64)}"….` } });
  });

  it('bounds the body as every door does: 413 past 10 MiB, Parse error past 64 levels of nesting, 415 for a Content-Encoding it does not take; no session is made', async () => {
    const contextId = newSessionId('a2a-bound');
    const message = (extra: Record<string, unknown>) => ({ jsonrpc: '2.0', id: 7, method: 'SendMessage', params: { message: { contextId, parts: [{ text: 'hi' }], ...extra } } });
    const large = await post(message({ pad: 'x'.repeat(10 * 1024 * 1024 + 1) }));
    expect(large.status).toBe(413);
    expect(await large.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: a request body is at most 10485760 bytes.' } });
    const nested = (levels: number) => JSON.parse(`${'{"x":'.repeat(levels)}1${'}'.repeat(levels)}`);
    expect(await answer(message({ metadata: nested(70) }))).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: JSON nested more than 64 levels deep is not accepted.' } });
    const brotli = await post(message({}), { 'content-encoding': 'br' });
    expect([brotli.status, brotli.headers.get('accept-encoding')]).toEqual([415, 'gzip, deflate']);
    expect(await brotli.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: A body\'s Content-Encoding may be gzip or deflate, not "br".' } });
    const notGzip = await post(message({}), { 'content-encoding': 'gzip' });
    expect(notGzip.status).toBe(400);
    expect(await notGzip.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: The body is not valid gzip data.' } });
    expect((await session(contextId)).status).toBe(404);
  });

  it('refuses a message without parts, an answer of the wrong shape and a task id it cannot read, and makes no session', async () => {
    const contextId = newSessionId('a2a-bad');
    const send = (message: unknown) => answer({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message } });
    expect(await send({ contextId, parts: [] })).toMatchObject({ id: 1, error: { code: -32602 } });
    expect(await send({ contextId, parts: [{ data: { toolCallId: 'call_1' } }] })).toMatchObject({ id: 1, error: { code: -32602 } });
    expect(await answer({ jsonrpc: '2.0', id: 3, method: 'GetTask', params: { id: 'no-colon' } })).toMatchObject({ id: 3, error: { code: -32001 } });
    // A task id of megabytes is named by its first 64 characters, not sent back.
    const huge = await answer({ jsonrpc: '2.0', id: 4, method: 'GetTask', params: { id: `turn_1:${'s'.repeat(1_000_000)}` } });
    expect(JSON.stringify(huge).length).toBeLessThan(1000);
    expect((await session(contextId)).status).toBe(404);
  });

  it('refuses a context id that is no session id (the context is the session), and makes no session', async () => {
    for (const contextId of ['bad ctx!', 'a/b', 'x'.repeat(129), '']) {
      const refused = await answer({ jsonrpc: '2.0', id: 4, method: 'SendMessage', params: { message: { contextId, parts: [{ text: 'hi' }] } } });
      expect(refused, contextId).toMatchObject({ id: 4, error: { code: -32602, message: expect.stringMatching(/^params\.message\.contextId is not a session id\. Session ids are 1 to 128 characters/) } });
    }
    const listed = await (await fetchWorker('/sessions')).json<{ sessions: unknown[] }>();
    expect(listed.sessions).toEqual([]);
  });
});
