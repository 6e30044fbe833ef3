/**
 * `POST /a2a` with what A2A's SDK client (test/clients/a2a-agent.clients.test.ts) never sends: each
 * bad request is answered as a JSON-RPC error, and runs nothing (the session it names stays unmade).
 */
import { describe, expect, it } from 'vitest';
import { fetchWorker, newSessionId, session } from '../helpers/api';

const post = (body: unknown) => fetchWorker('/a2a', { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
const answer = async (body: unknown) => {
  const response = await post(body);
  expect(response.status).toBe(200);
  return response.json<any>();
};

describe('the A2A door’s envelope', () => {
  it('refuses a body that is not a JSON-RPC 2.0 request with Invalid Request, id null', async () => {
    for (const body of ['not json', { id: 1, method: 'GetTask' }, { jsonrpc: '1.0', id: 1, method: 'GetTask' }, { jsonrpc: '2.0', id: 1 }, { jsonrpc: '2.0', id: {}, method: 'GetTask' }]) {
      expect(await answer(body)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Not a JSON-RPC 2.0 request.' } });
    }
  });

  it('answers a method it does not serve with Method not found, by the request’s id, null when it had none', async () => {
    expect(await answer({ jsonrpc: '2.0', id: 'r1', method: 'tasks/pushNotificationConfig/set' })).toMatchObject({ id: 'r1', error: { code: -32601 } });
    expect(await answer({ jsonrpc: '2.0', method: 'Nope' })).toMatchObject({ id: null, error: { code: -32601 } });
    expect(await answer({ jsonrpc: '2.0', id: 2.5, method: 'Nope' })).toMatchObject({ id: 2.5, error: { code: -32601 } });
  });

  it('refuses a message without parts, an answer of the wrong shape and a task id it cannot read, and makes no session', async () => {
    const contextId = newSessionId('a2a-bad');
    const send = (message: unknown) => answer({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message } });
    expect(await send({ contextId, parts: [] })).toMatchObject({ id: 1, error: { code: -32602 } });
    expect(await send({ contextId, parts: [{ data: { toolCallId: 'call_1' } }] })).toMatchObject({ id: 1, error: { code: -32602 } });
    expect(await answer({ jsonrpc: '2.0', id: 3, method: 'GetTask', params: { id: 'no-colon' } })).toMatchObject({ id: 3, error: { code: -32001 } });
    expect((await session(contextId)).status).toBe(404);
  });
});
