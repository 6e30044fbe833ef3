/**
 * Every rule of docs/turns-api.md and the the error table of docs/turns-api-reference.md with its status and code, and after each rejected request
 * the session's stored state exactly as it was (history, pending calls, times).
 */
import { describe, expect, it } from 'vitest';
import { fetchWorker, history, newSessionId, postTurn, readSse, session, turn, user } from '../helpers/api';

async function snapshot(sessionId: string) {
  return { session: await session(sessionId), history: await history(sessionId) };
}

async function expectError(response: Response, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const body = (await response.json()) as { error: { code: string; message: string; details?: any } };
  expect(body.error.code).toBe(code);
  expect(body.error.message.length).toBeGreaterThan(10);
  return body.error;
}

/** A session that waits for a permission (call_demo_1_0) and a client result (call_demo_1_1). */
async function pendingSession(): Promise<string> {
  const id = newSessionId('pending');
  const result = await turn(id, { messages: [user('remember x; call get_weather {}')], tools: [{ name: 'get_weather' }] });
  expect(result.status).toBe(200);
  return id;
}

const post = (sessionId: string, body: BodyInit, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
  fetchWorker(`/sessions/${sessionId}/turns`, { method: 'POST', headers, body });

describe('rejected requests change nothing', () => {
  it.each([
    ['no messages', { messages: [] }],
    ['no messages field', { stream: 'delta' }],
    ['an unknown field', { messages: [user('hi')], temperature: 2 }],
    ['an assistant message', { messages: [{ role: 'assistant', content: 'I said' }] }],
    ['an unknown role', { messages: [{ role: 'robot', content: 'beep' }] }],
    ['an unknown stream mode', { messages: [user('hi')], stream: 'fast' }],
    ['a content of the wrong type', { messages: [{ role: 'user', content: 42 }] }],
    ['a tool with a bad name', { messages: [user('hi')], tools: [{ name: 'has space' }] }],
    ['tool parameters that are not an object schema', { messages: [user('hi')], tools: [{ name: 't', parameters: { type: 'string' } }] }],
    ['a permission without granted', { messages: [{ role: 'tool_permission', toolCallId: 'call_demo_1_0' }] }],
    ['more than 256 messages', { messages: Array.from({ length: 257 }, () => user('hi')) }],
    ['more than 128 tools', { messages: [user('hi')], tools: Array.from({ length: 129 }, (_, i) => ({ name: `t${i}` })) }],
    ['a text over 8 MiB of characters', { messages: [user('x'.repeat(8 * 1024 * 1024 + 1))] }],
    [
      'a tool schema over 16 KiB',
      { messages: [user('hi')], tools: [{ name: 'big', parameters: { type: 'object', description: 'x'.repeat(17_000) } }] },
    ],
  ])('400 invalid_request for %s', async (_label, body) => {
    const id = await pendingSession();
    const before = await snapshot(id);
    const error = await expectError(await postTurn(id, body), 400, 'invalid_request');
    expect(error.details.issues.length).toBeGreaterThan(0);
    expect(await snapshot(id)).toEqual(before);
  });

  it('400 invalid_json for a body that is not JSON', async () => {
    const id = await pendingSession();
    const before = await snapshot(id);
    await expectError(await post(id, '{"messages": ['), 400, 'invalid_json');
    expect(await snapshot(id)).toEqual(before);
  });

  it('415 unsupported_media_type for a body that is not sent as JSON', async () => {
    const id = await pendingSession();
    const before = await snapshot(id);
    await expectError(await post(id, JSON.stringify({ messages: [user('hi')] }), { 'content-type': 'text/plain' }), 415, 'unsupported_media_type');
    await expectError(await post(id, JSON.stringify({ messages: [user('hi')] }), {}), 415, 'unsupported_media_type');
    expect(await snapshot(id)).toEqual(before);
  });

  it('413 payload_too_large for a body over 10 MiB', async () => {
    const id = await pendingSession();
    const before = await snapshot(id);
    await expectError(await postTurn(id, { messages: [user('x'.repeat(10 * 1024 * 1024 + 10))] }), 413, 'payload_too_large');
    expect(await snapshot(id)).toEqual(before);
  });

  it('takes a gzip- or deflate-encoded body as its decoded JSON, bound to an Idempotency-Key by that JSON', async () => {
    const id = newSessionId('encoded');
    const text = JSON.stringify({ messages: [user('hello')] });
    const sent = await post(id, await encode(text, 'gzip'), { 'content-type': 'application/json', 'content-encoding': 'gzip', 'idempotency-key': 'k-encoded' });
    expect(sent.status).toBe(200);
    const first = (await sent.json()) as { turnId: string };
    // The same body, not encoded, is the same request: a retry that is answered from the first turn.
    const again = await post(id, text, { 'content-type': 'application/json', 'idempotency-key': 'k-encoded' });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(((await again.json()) as { turnId: string }).turnId).toBe(first.turnId);
    const deflated = await post(id, await encode(JSON.stringify({ messages: [user('hi again')] }), 'deflate'), { 'content-type': 'application/json', 'content-encoding': 'Deflate' });
    expect(deflated.status).toBe(200);
    expect((await history(id)).map((message) => message.content)).toContain('hi again');
  });

  it('415 unsupported_content_encoding for a coding other than gzip and deflate, naming those', async () => {
    const id = await pendingSession();
    const before = await snapshot(id);
    for (const coding of ['br', 'zstd', 'gzip, gzip']) {
      const response = await post(id, JSON.stringify({ messages: [user('hi')] }), { 'content-type': 'application/json', 'content-encoding': coding });
      expect(response.headers.get('accept-encoding')).toBe('gzip, deflate');
      const error = await expectError(response, 415, 'unsupported_content_encoding');
      expect(error.message).toContain(`not "${coding}"`);
    }
    expect(await snapshot(id)).toEqual(before);
  });

  it('400 invalid_json for a body its Content-Encoding does not decode; 413 for one that decodes past 10 MiB', async () => {
    const id = await pendingSession();
    const before = await snapshot(id);
    const error = await expectError(await post(id, JSON.stringify({ messages: [user('hi')] }), { 'content-type': 'application/json', 'content-encoding': 'gzip' }), 400, 'invalid_json');
    expect(error.message).toBe('The body is not valid gzip data.');
    // Some kilobytes that inflate to 11 MiB: refused as they inflate, never held whole.
    const bomb = await encode(JSON.stringify({ messages: [user('x'.repeat(11 * 1024 * 1024))] }), 'gzip');
    expect(bomb.byteLength).toBeLessThan(100_000);
    await expectError(await post(id, bomb, { 'content-type': 'application/json', 'content-encoding': 'gzip' }), 413, 'payload_too_large');
    expect(await snapshot(id)).toEqual(before);
  });

  it('400 invalid_session_id for an id outside [A-Za-z0-9._:-]{1,128}', async () => {
    for (const bad of ['has%20space', 'x'.repeat(129), 'caf%C3%A9', 'a%2Fb']) {
      await expectError(await postTurn(bad, { messages: [user('hi')] }), 400, 'invalid_session_id');
      await expectError(await fetchWorker(`/sessions/${bad}`), 400, 'invalid_session_id');
    }
  });

  it('400 tool_name_conflict when a client tool is named like a server tool, or twice', async () => {
    const id = await pendingSession();
    const before = await snapshot(id);
    const clash = await expectError(await postTurn(id, { messages: [user('hi')], tools: [{ name: 'calculator' }] }), 400, 'tool_name_conflict');
    expect(clash.details.names).toEqual(['calculator']);
    const twice = await expectError(await postTurn(id, { messages: [user('hi')], tools: [{ name: 'a' }, { name: 'a' }] }), 400, 'tool_name_conflict');
    expect(twice.details.names).toEqual(['a']);
    expect(await snapshot(id)).toEqual(before);
  });

  it('400 model_not_allowed for a model the deployment does not list, naming the allowed ones', async () => {
    const id = await pendingSession();
    const before = await snapshot(id);
    const error = await expectError(await postTurn(id, { messages: [user('hi')], model: 'openai:gpt-5' }), 400, 'model_not_allowed');
    expect(error.details.allowedModels).toContain('demo:demo');
    expect(await snapshot(id)).toEqual(before);
  });

  it.each([
    ['an id no call has', [{ role: 'tool', toolCallId: 'call_nope', content: 'x' }]],
    ['a tool_permission aimed at a client call', [{ role: 'tool_permission', toolCallId: 'call_demo_1_1', granted: true }]],
    ['a tool result aimed at an untrusted server call', [{ role: 'tool', toolCallId: 'call_demo_1_0', content: 'x' }]],
    [
      'the same call answered twice',
      [
        { role: 'tool_permission', toolCallId: 'call_demo_1_0', granted: true },
        { role: 'tool_permission', toolCallId: 'call_demo_1_0', granted: false },
        { role: 'tool', toolCallId: 'call_demo_1_1', content: 'x' },
      ],
    ],
  ])('400 unknown_tool_call for %s', async (_label, messages) => {
    const id = await pendingSession();
    const before = await snapshot(id);
    await expectError(await postTurn(id, { messages }), 400, 'unknown_tool_call');
    expect(await snapshot(id)).toEqual(before);
  });

  it('400 unknown_tool_call for an id of megabytes names it by its start: the answer does not send it back', async () => {
    const id = await pendingSession();
    const before = await snapshot(id);
    const response = await postTurn(id, { messages: [{ role: 'tool', toolCallId: 'x'.repeat(1_000_000), content: 'x' }] });
    expect((await response.clone().text()).length).toBeLessThan(1000);
    const error = await expectError(response, 400, 'unknown_tool_call');
    expect(error.message).toBe(`No pending tool call has the id "${'x'.repeat(128)}"….`);
    expect(error.details.toolCallId).toBe(`${'x'.repeat(256)}…`);
    expect(await snapshot(id)).toEqual(before);
  });

  it('400 unknown_tool_call for an answer when nothing is pending', async () => {
    const id = newSessionId('idle');
    await turn(id, { messages: [user('hi')] });
    const before = await snapshot(id);
    await expectError(await postTurn(id, { messages: [{ role: 'tool', toolCallId: 'call_demo_1_0', content: 'x' }] }), 400, 'unknown_tool_call');
    expect(await snapshot(id)).toEqual(before);
  });

  it('409 pending_tool_calls listing the ids still owed', async () => {
    const id = await pendingSession();
    const before = await snapshot(id);
    expect(before.session.body.pendingToolCalls.map((call: any) => [call.toolCallId, call.awaiting])).toEqual([
      ['call_demo_1_0', 'permission'],
      ['call_demo_1_1', 'client'],
    ]);
    const some = await expectError(
      await postTurn(id, { messages: [{ role: 'tool_permission', toolCallId: 'call_demo_1_0', granted: true }] }),
      409,
      'pending_tool_calls',
    );
    expect(some.details.pendingToolCallIds).toEqual(['call_demo_1_1']);
    const none = await expectError(await postTurn(id, { messages: [user('never mind')] }), 409, 'pending_tool_calls');
    expect(none.details.pendingToolCallIds).toEqual(['call_demo_1_0', 'call_demo_1_1']);
    expect(await snapshot(id)).toEqual(before);
  });

  it('checks in the contract order: shape, then busy, then unknown calls, then calls owed', async () => {
    const id = await pendingSession();
    // An unknown answer and a missing one: unknown_tool_call answers first.
    await expectError(await postTurn(id, { messages: [{ role: 'tool', toolCallId: 'call_nope', content: 'x' }] }), 400, 'unknown_tool_call');
    // Bad shape and an unknown answer: the shape answers first.
    await expectError(await postTurn(id, { messages: [{ role: 'tool', toolCallId: 'call_nope' }] }), 400, 'invalid_request');
  });

  it('a rejected first turn does not create the session', async () => {
    const id = newSessionId('never');
    await expectError(await postTurn(id, { messages: [{ role: 'tool', toolCallId: 'call_x', content: 'x' }] }), 400, 'unknown_tool_call');
    await expectError(await fetchWorker(`/sessions/${id}`), 404, 'session_not_found');
  });
});

describe('one running turn at a time', () => {
  it('409 session_busy while a turn runs (before any other check), and the turn is not disturbed', async () => {
    const id = newSessionId('busy');
    const running = await postTurn(id, { messages: [user('slow please')], stream: 'delta', model: 'openai:script/slow' });
    expect(running.status).toBe(200);
    const reader = readSse(running);
    await expectError(await postTurn(id, { messages: [user('me too')] }), 409, 'session_busy');
    await expectError(await postTurn(id, { messages: [{ role: 'tool', toolCallId: 'call_nope', content: 'x' }] }), 409, 'session_busy');
    await expectError(await fetchWorker(`/sessions/${id}`, { method: 'DELETE' }), 409, 'session_busy');
    const { body } = await session(id);
    expect(body.running).toBe(true);
    expect(body.runningTurnId).toMatch(/^turn_/);

    const events = await reader;
    expect(events.at(-1)?.data.stopReason).toBe('end_turn');
    expect((await history(id)).map((m) => m.role)).toEqual(['user', 'assistant']);
    expect((await turn(id, { messages: [user('now me')] })).status).toBe(200);
  });
});

describe('routes and methods', () => {
  it('404 not_found for an unknown route', async () => {
    await expectError(await fetchWorker('/nowhere'), 404, 'not_found');
    await expectError(await fetchWorker('/sessions/a/turns/b/c'), 404, 'not_found');
    // A turn id that is not one is no turn of the session.
    await expectError(await fetchWorker('/sessions/a/turns/b'), 404, 'turn_not_found');
  });

  it.each([
    ['PUT', '/sessions/a/turns', 'GET, POST, HEAD'],
    ['DELETE', '/sessions/a/turns', 'GET, POST, HEAD'],
    ['POST', '/sessions/a/messages', 'GET, HEAD'],
    ['POST', '/sessions/a', 'GET, DELETE, HEAD'],
    ['PATCH', '/sessions/a', 'GET, DELETE, HEAD'],
    ['POST', '/sessions/a/ws', 'GET, HEAD'],
    ['GET', '/sessions/a/turns/b/cancel', 'POST'],
    ['PUT', '/sessions/a/schedules', 'GET, POST, HEAD'],
    ['DELETE', '/sessions', 'GET, HEAD'],
    ['POST', '/users/me', 'GET, DELETE, HEAD'],
    ['GET', '/a2a', 'POST'],
    ['GET', '/ag-ui', 'POST'],
    ['POST', '/healthz', 'GET, HEAD'],
  ])('405 method_not_allowed for %s %s, naming %s', async (method, path, allowed) => {
    const response = await fetchWorker(path, { method });
    const allow = response.headers.get('allow');
    const error = await expectError(response, 405, 'method_not_allowed');
    // RFC 9110: a 405 lists what the route takes, in its Allow header; HEAD wherever GET is.
    expect(allow).toBe(error.details.allowed.join(', '));
    expect(allow).toBe(allowed);
  });

  it('answers HEAD as GET without the body: status and headers alike, a session stream cancelled', async () => {
    const health = await fetchWorker('/healthz', { method: 'HEAD' });
    expect([health.status, health.headers.get('content-type'), await health.text()]).toEqual([200, 'application/json', '']);
    const id = newSessionId('head');
    const missing = await fetchWorker(`/sessions/${id}`, { method: 'HEAD' });
    expect([missing.status, missing.headers.get('x-error-code'), await missing.text()]).toEqual([404, 'session_not_found', '']);
    const { turnId } = ((await turn(id, { messages: [user('hello')] })) as unknown as { body: { turnId: string } }).body;
    const found = await fetchWorker(`/sessions/${id}/messages`, { method: 'HEAD' });
    expect([found.status, await found.text()]).toEqual([200, '']);
    const events = await fetchWorker(`/sessions/${id}/turns/${turnId}/events`, { method: 'HEAD' });
    expect([events.status, events.headers.get('content-type'), await events.text()]).toEqual([200, 'text/event-stream; charset=utf-8', '']);
    const listed = await fetchWorker(`/sessions/${id}/turns`, { method: 'HEAD' });
    expect([listed.status, await listed.text()]).toEqual([200, '']);
    const refused = await fetchWorker(`/sessions/${id}/turns/${turnId}/cancel`, { method: 'HEAD' });
    expect([refused.status, refused.headers.get('allow')]).toEqual([405, 'POST']);
  });

  it('404 session_not_found on the GET and DELETE routes of a session that does not exist', async () => {
    const id = newSessionId('ghost');
    await expectError(await fetchWorker(`/sessions/${id}`), 404, 'session_not_found');
    await expectError(await fetchWorker(`/sessions/${id}/messages`), 404, 'session_not_found');
    await expectError(await fetchWorker(`/sessions/${id}`, { method: 'DELETE' }), 404, 'session_not_found');
  });

  it.each(['limit=0', 'limit=abc', 'limit=501', 'cursor=xyz', 'limit=1&limit=2', 'page=2'])('400 invalid_query for ?%s', async (query) => {
    const id = newSessionId('query');
    await turn(id, { messages: [user('hi')] });
    await expectError(await fetchWorker(`/sessions/${id}/messages?${query}`), 400, 'invalid_query');
  });
});

describe.each(['delta', 'message', 'none'] as const)('with stream: "%s", a rejection is a JSON error before any stream', (stream) => {
  it('answers each rule with its status and code and changes nothing', async () => {
    const id = await pendingSession();
    const before = await snapshot(id);
    const cases: [unknown, number, string][] = [
      [{ messages: [{ role: 'tool', toolCallId: 'call_nope', content: 'x' }] }, 400, 'unknown_tool_call'],
      [{ messages: [{ role: 'tool_permission', toolCallId: 'call_demo_1_0', granted: true }] }, 409, 'pending_tool_calls'],
      [{ messages: [user('hi')], tools: [{ name: 'memory_list' }] }, 400, 'tool_name_conflict'],
      [{ messages: [user('hi')], model: 'openai:nope' }, 400, 'model_not_allowed'],
      [{ messages: [user('hi')], extra: true }, 400, 'invalid_request'],
    ];
    for (const [body, status, code] of cases) {
      await expectError(await postTurn(id, { ...(body as object), stream }), status, code);
    }
    expect(await snapshot(id)).toEqual(before);

    const busy = newSessionId('busy-mode');
    const running = await postTurn(busy, { messages: [user('slow')], stream: 'delta', model: 'openai:script/slow' });
    await expectError(await postTurn(busy, { messages: [user('hi')], stream }), 409, 'session_busy');
    await readSse(running);
  });
});

/** A body as a client compresses it (the platform's CompressionStream). */
async function encode(text: string, coding: 'gzip' | 'deflate'): Promise<Uint8Array> {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream(coding));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}
