/**
 * The A2A door in both versions (docs/a2a.md, "Both versions"): the card each version's reader gets,
 * A2A v0.3's methods and JSON shapes as its clients read them (`kind`, lowercase states, a `final`
 * status), `A2A-Version` and the methods of the other version refused, push notifications refused,
 * and a send that asks for its task at once. The SDK's own v0.3 client runs against the same door in
 * test/clients/a2a-agent.clients.test.ts.
 */
import { describe, expect, it, vi } from 'vitest';
import { fetchWorker, history, newSessionId, readSse, session } from '../helpers/api';

const post = (body: unknown, headers: Record<string, string> = {}) =>
  fetchWorker('/a2a', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
const call = async (method: string, params: unknown, headers: Record<string, string> = {}) => {
  const response = await post({ jsonrpc: '2.0', id: 1, method, params }, headers);
  expect(response.status).toBe(200);
  return response.json<any>();
};
/** A message as a v0.3 client writes it: each part and the message say their kind. */
const v03Message = (text: string, ids: Record<string, string> = {}) => ({ kind: 'message', messageId: crypto.randomUUID(), role: 'user', parts: [{ kind: 'text', text }], ...ids });

async function settled(taskId: string): Promise<any> {
  for (let tries = 0; tries < 200; tries++) {
    const { result } = await call('tasks/get', { id: taskId });
    if (result.status.state !== 'working' && result.status.state !== 'submitted') return result;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`task ${taskId} did not settle`);
}

describe('the agent card, in the version its reader asks for', () => {
  it('is v0.3’s shape, with the v1.0 interfaces beside it, for a reader that names no version or 0.3', async () => {
    const readers = [{}, { 'a2a-version': '0.3' }, { 'a2a-version': '0.3.0' }] as Record<string, string>[];
    // `agent.json`: where clients of the versions before 0.3 look for it.
    for (const [path, headers] of [...readers.map((headers) => ['agent-card.json', headers] as const), ['agent.json', {}] as const]) {
      const response = await fetchWorker(`/.well-known/${path}`, { headers });
      expect(response.headers.get('vary')).toContain('A2A-Version');
      const card = await response.json<any>();
      expect(card).toMatchObject({
        protocolVersion: '0.3.0',
        url: 'http://localhost/a2a',
        preferredTransport: 'JSONRPC',
        capabilities: { streaming: true, pushNotifications: false },
        supportedInterfaces: [
          { url: 'http://localhost/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
          { url: 'http://localhost/a2a', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
        ],
      });
    }
  });

  it('is v1.0’s for a v1.0 reader, and for one of a later version, which finds each interface’s version there', async () => {
    for (const version of ['1.0', '1.1']) {
      const card = await (await fetchWorker('/.well-known/agent-card.json', { headers: { 'a2a-version': version } })).json<any>();
      expect(card).not.toHaveProperty('url');
      expect(card).not.toHaveProperty('protocolVersion');
      expect(card.supportedInterfaces.map((entry: any) => entry.protocolVersion)).toEqual(['1.0', '0.3']);
    }
  });
});

describe('A2A v0.3’s methods, in its own words', () => {
  it('message/send answers the task itself: kinds, lowercase states, parts that say their kind', async () => {
    const { result } = await call('message/send', { message: v03Message('calculate 2+3') });
    expect(result).toMatchObject({ kind: 'task', id: expect.stringMatching(/^turn_[0-9a-f]{24}:a2a-/), status: { state: 'completed', message: { kind: 'message', role: 'agent' } } });
    // Its history: the user's message, in v0.3's words.
    expect(result.history).toEqual([{ kind: 'message', messageId: `${result.id}/user/1`, contextId: result.contextId, taskId: result.id, role: 'user', parts: [{ kind: 'text', text: 'calculate 2+3' }] }]);
    expect(result.artifacts[0]).toMatchObject({ artifactId: 'answer', parts: [{ kind: 'text', text: expect.stringContaining('calculator: 5') }] });
    const got = await call('tasks/get', { id: result.id });
    expect(got.result).toEqual(result);
    expect((await call('tasks/get', { id: result.id, historyLength: 0 })).result.history).toEqual([]);
  });

  it('message/stream sends the task, its answer as artifact updates, and a final status update', async () => {
    const response = await post({ jsonrpc: '2.0', id: 'r', method: 'message/stream', params: { message: v03Message('calculate 6*7') } });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const results = (await readSse(response)).map((event) => {
      expect(event.data).toMatchObject({ jsonrpc: '2.0', id: 'r' });
      return event.data.result;
    });
    expect(results[0]).toMatchObject({ kind: 'task', status: { state: 'working' } });
    const updates = results.filter((result) => result.kind === 'artifact-update');
    expect(updates.map((update) => update.artifact.parts.map((part: any) => part.text).join('')).join('')).toContain('calculator: 42');
    expect(updates.every((update) => update.artifact.parts.every((part: any) => part.kind === 'text'))).toBe(true);
    expect(results.at(-1)).toMatchObject({ kind: 'status-update', taskId: results[0].id, status: { state: 'completed' }, final: true });
    expect(results.filter((result) => result.kind === 'status-update')).toHaveLength(1);
  });

  it('asks for a permission as input-required, its calls a data part, and takes the answer in the same task', async () => {
    const { result: asked } = await call('message/send', { message: v03Message('remember the door code') });
    expect(asked.status.state).toBe('input-required');
    const [part] = asked.status.message.parts;
    expect(part).toMatchObject({ kind: 'data', data: { pendingToolCalls: [{ name: 'memory_save', awaiting: 'permission' }] } });
    const answer = { kind: 'message', messageId: crypto.randomUUID(), role: 'user', taskId: asked.id, parts: [{ kind: 'data', data: { toolCallId: part.data.pendingToolCalls[0].toolCallId, granted: true } }] };
    const { result: done } = await call('message/send', { message: answer });
    expect(done).toMatchObject({ kind: 'task', contextId: asked.contextId, status: { state: 'completed' } });
  });

  it('tasks/resubscribe follows a running task to its final status; tasks/cancel cancels it; a task that ended is not subscribed to', async () => {
    const { result: started } = await call('message/send', { message: v03Message('slowly'), metadata: { model: 'openai:script/slow' }, configuration: { blocking: false } });
    expect(started).toMatchObject({ kind: 'task', status: { state: 'working' } });
    // Subscribed (its stream open: a task not ended yet) before the cancel: a cancel that came first
    // would have the subscription refused, as the end of this test has it.
    const following = await post({ jsonrpc: '2.0', id: 2, method: 'tasks/resubscribe', params: { id: started.id } });
    expect(following.headers.get('content-type')).toContain('text/event-stream');
    const { result: canceled } = await call('tasks/cancel', { id: started.id });
    expect(canceled).toMatchObject({ kind: 'task', id: started.id, status: { state: 'canceled' } });
    const replayed = (await readSse(following)).map((event) => event.data.result);
    expect(replayed[0]).toMatchObject({ kind: 'task', id: started.id });
    expect(replayed.at(-1)).toMatchObject({ kind: 'status-update', status: { state: 'canceled' }, final: true });
    // Once it has ended, A2A has the subscription refused (UnsupportedOperationError), as a plain JSON-RPC answer.
    const refused = await post({ jsonrpc: '2.0', id: 3, method: 'tasks/resubscribe', params: { id: started.id } });
    expect(refused.headers.get('content-type')).toContain('application/json');
    expect(await refused.json()).toMatchObject({ id: 3, error: { code: -32004, message: expect.stringContaining('has ended (TASK_STATE_CANCELED)') } });
    expect((await call('tasks/get', { id: `turn_${'0'.repeat(24)}:${canceled.contextId}` })).error.code).toBe(-32001);
  });

  it('refuses a message for a task that ended, and for one that is not there; a task waiting for input takes its answers', async () => {
    const v1 = { 'a2a-version': '1.0' };
    const { result: done } = await call('SendMessage', { message: { parts: [{ text: 'hello' }] } }, v1);
    const contextId = done.task.contextId;
    const before = await history(contextId);
    for (const method of ['SendMessage', 'SendStreamingMessage']) {
      const refused = await post({ jsonrpc: '2.0', id: 4, method, params: { message: { taskId: done.task.id, parts: [{ text: 'more' }] } } }, v1);
      expect(refused.headers.get('content-type'), method).toContain('application/json');
      expect(await refused.json(), method).toMatchObject({ id: 4, error: { code: -32004, message: expect.stringContaining('takes no more messages') } });
    }
    const missing = await call('SendMessage', { message: { taskId: `turn_${'0'.repeat(24)}:${contextId}`, parts: [{ text: 'more' }] } }, v1);
    expect(missing.error.code).toBe(-32001);
    expect((await call('SubscribeToTask', { id: done.task.id }, v1)).error.code).toBe(-32004);
    expect(await history(contextId)).toEqual(before);
    // One that waits for input is no end: it can be subscribed to, and takes its answers.
    const { result: asked } = await call('SendMessage', { message: { contextId, parts: [{ text: 'remember the gate code' }] } }, v1);
    expect(asked.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const replayed = (await readSse(await post({ jsonrpc: '2.0', id: 5, method: 'SubscribeToTask', params: { id: asked.task.id } }, v1))).map((event) => event.data.result);
    expect(replayed.at(-1)).toMatchObject({ statusUpdate: { status: { state: 'TASK_STATE_INPUT_REQUIRED' } } });
    const [pending] = asked.task.status.message.parts[0].data.pendingToolCalls;
    // A context that is not the task's is refused, as A2A's own server does.
    const elsewhere = await call('SendMessage', { message: { taskId: asked.task.id, contextId: 'another-context', parts: [{ data: { toolCallId: pending.toolCallId, granted: false } }] } }, v1);
    expect(elsewhere.error).toMatchObject({ code: -32602, message: expect.stringContaining('is not the context of task') });
    const answered = await call('SendMessage', { message: { taskId: asked.task.id, parts: [{ data: { toolCallId: pending.toolCallId, granted: false } }] } }, v1);
    expect(answered.result.task.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('a send that asks for its task at once answers it working, and the turn goes on without a client', async () => {
    const v03 = await call('message/send', { message: v03Message('calculate 3*3'), configuration: { blocking: false } });
    expect(v03.result).toMatchObject({ kind: 'task', status: { state: 'working' }, artifacts: [] });
    expect(await settled(v03.result.id)).toMatchObject({ status: { state: 'completed' }, artifacts: [{ parts: [{ text: expect.stringContaining('calculator: 9') }] }] });
    // v1.0 says it as `returnImmediately`.
    const v1 = await call('SendMessage', { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'calculate 4*4' }] }, configuration: { returnImmediately: true } }, { 'a2a-version': '1.0' });
    expect(v1.result.task).toMatchObject({ status: { state: 'TASK_STATE_WORKING' }, artifacts: [] });
    expect(await settled(v1.result.task.id)).toMatchObject({ status: { state: 'completed' } });
  });

  it('gets a running task as far as it has come: its history and its answer so far, still working', async () => {
    const { result: started } = await call('SendMessage', { message: { parts: [{ text: 'slowly' }] }, metadata: { model: 'openai:script/slow' }, configuration: { returnImmediately: true } }, { 'a2a-version': '1.0' });
    const id = started.task.id;
    const sofar = await vi.waitFor(
      async () => {
        const { result } = await call('GetTask', { id }, { 'a2a-version': '1.0' });
        expect(result.artifacts[0]?.parts[0]?.text).toBeTruthy();
        return result;
      },
      { timeout: 5000, interval: 30 },
    );
    expect(sofar.status.state).toBe('TASK_STATE_WORKING');
    expect(sofar.history).toEqual([expect.objectContaining({ role: 'ROLE_USER', parts: [{ text: 'slowly' }] })]);
    // In a listing too, and in v0.3's words.
    const listed = (await call('ListTasks', { contextId: sofar.contextId }, { 'a2a-version': '1.0' })).result.tasks[0];
    expect(listed).toMatchObject({ id, status: { state: 'TASK_STATE_WORKING' }, history: sofar.history, artifacts: [] });
    expect((await call('tasks/get', { id })).result).toMatchObject({ kind: 'task', status: { state: 'working' }, history: [{ kind: 'message', role: 'user' }] });
    const done = await settled(id);
    expect(done.artifacts[0].parts[0].text.startsWith(sofar.artifacts[0].parts[0].text)).toBe(true);
  });
});

describe('a task that waits behind another', () => {
  it('is submitted with the message it brings: as sent, got and listed, and after it has run', async () => {
    const v1 = { 'a2a-version': '1.0' };
    const { result: first } = await call('SendMessage', { message: { parts: [{ text: 'slowly' }] }, metadata: { model: 'openai:script/slow' }, configuration: { returnImmediately: true } }, v1);
    const contextId = first.task.contextId;
    expect(first.task.history).toEqual([expect.objectContaining({ role: 'ROLE_USER', parts: [{ text: 'slowly' }] })]);
    const { result: second } = await call('SendMessage', { message: { contextId, parts: [{ text: 'calculate 5*5' }] }, configuration: { returnImmediately: true } }, v1);
    const id = second.task.id;
    const history = [{ messageId: `${id}/user/1`, contextId, taskId: id, role: 'ROLE_USER', parts: [{ text: 'calculate 5*5' }] }];
    expect(second.task).toMatchObject({ status: { state: 'TASK_STATE_SUBMITTED' }, history });
    expect((await call('GetTask', { id }, v1)).result).toMatchObject({ status: { state: 'TASK_STATE_SUBMITTED' }, history });
    expect((await call('GetTask', { id, historyLength: 0 }, v1)).result.history).toEqual([]);
    const listed = (await call('ListTasks', { contextId }, v1)).result.tasks;
    expect(listed.map((task: any) => task.id)).toEqual([id, first.task.id]);
    expect(listed[0]).toMatchObject({ status: { state: 'TASK_STATE_SUBMITTED' }, history });
    expect(await settled(id)).toMatchObject({ status: { state: 'completed' } });
    expect((await call('GetTask', { id }, v1)).result.history).toEqual(history);
  });
});

describe('images, as file parts of either version', () => {
  const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

  it('takes v1.0’s raw and url parts and v0.3’s file parts, in their order, as the user message’s blocks', async () => {
    const v1 = newSessionId('a2a-image');
    const sent = await call('SendMessage', { message: { contextId: v1, parts: [{ text: 'what is this?' }, { raw: PNG, mediaType: 'image/png', filename: 'dot.png' }, { url: 'https://example.com/cat.jpg', mediaType: 'image/jpeg' }] } }, { 'a2a-version': '1.0' });
    expect(sent.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect((await history(v1))[0]).toEqual({ role: 'user', content: [{ type: 'text', text: 'what is this?' }, { type: 'image', mimeType: 'image/png', data: PNG }, { type: 'image', url: 'https://example.com/cat.jpg' }] });
    // The task's history has them too, as parts (a URL's media type is not kept).
    expect(sent.result.task.history[0].parts).toEqual([{ text: 'what is this?' }, { raw: PNG, mediaType: 'image/png' }, { url: 'https://example.com/cat.jpg' }]);
    const v03 = newSessionId('a2a-image');
    const sent03 = await call('message/send', { message: { ...v03Message('and this?', { contextId: v03 }), parts: [{ kind: 'file', file: { bytes: PNG, mimeType: 'image/png', name: 'dot.png' } }, { kind: 'text', text: 'and this?' }] } });
    expect((await history(v03))[0]).toEqual({ role: 'user', content: [{ type: 'image', mimeType: 'image/png', data: PNG }, { type: 'text', text: 'and this?' }] });
    expect(sent03.result.history[0].parts).toEqual([{ kind: 'file', file: { bytes: PNG, mimeType: 'image/png' } }, { kind: 'text', text: 'and this?' }]);
  });

  it('answers a task with the history configuration.historyLength asks for, and refuses one that is not a count', async () => {
    const none = await call('SendMessage', { message: { parts: [{ text: 'hello' }] }, configuration: { historyLength: 0 } }, { 'a2a-version': '1.0' });
    expect(none.result.task.history).toEqual([]);
    const one = await call('SendMessage', { message: { parts: [{ text: 'hello' }] }, configuration: { historyLength: 1 } }, { 'a2a-version': '1.0' });
    expect(one.result.task.history).toHaveLength(1);
    for (const historyLength of [-1, 1.5, '2']) {
      const refused = await call('SendMessage', { message: { parts: [{ text: 'hello' }] }, configuration: { historyLength } }, { 'a2a-version': '1.0' });
      expect(refused.error).toMatchObject({ code: -32602, message: 'Invalid params: params.configuration.historyLength: a number of messages, 0 or more.' });
      const got = await call('tasks/get', { id: one.result.task.id, historyLength });
      expect(got.error).toMatchObject({ code: -32602, message: 'Invalid params: params.historyLength: a number of messages, 0 or more.' });
    }
  });

  it('refuses a file that is no image, or brings neither bytes nor an http(s) URL, and makes no session', async () => {
    const contextId = newSessionId('a2a-file');
    const refusals = [
      [{ raw: 'JVBERi0=', mediaType: 'application/pdf', filename: 'report.pdf' }, /taken as an image: "report\.pdf" is "application\/pdf"\./],
      [{ kind: 'file', file: { bytes: PNG } }, /names its media type/],
      [{ kind: 'file', file: { uri: 'ftp://example.com/a.png', mimeType: 'image/png' } }, /bytes \(base64\) or an http\(s\) URL/],
      [{ url: 'https://example.com/a.png' }, /names its media type/],
    ] as const;
    for (const [part, message] of refusals) {
      const refused = await call('message/send', { message: { kind: 'message', messageId: 'm', role: 'user', contextId, parts: [{ kind: 'text', text: 'look' }, part] } });
      expect(refused.error, JSON.stringify(part)).toMatchObject({ code: -32602, message: expect.stringMatching(message) });
    }
    expect((await session(contextId)).status).toBe(404);
  });
});

describe('which version a request speaks', () => {
  it('refuses a version the door does not speak (-32009), naming those it does, and runs nothing', async () => {
    const contextId = newSessionId('a2a-version');
    for (const version of ['2.0', '0.2', 'latest', '1']) {
      const refused = await call('SendMessage', { message: { contextId, parts: [{ text: 'hi' }] } }, { 'a2a-version': version });
      expect(refused).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32009, message: `A2A version ${JSON.stringify(version)} is not supported. Supported versions: 1.0, 0.3.` } });
    }
    expect((await session(contextId)).status).toBe(404);
  });

  it('answers a method of the other version with Method not found, in the version the request named', async () => {
    const contextId = newSessionId('a2a-other');
    expect(await call('message/send', { message: v03Message('hi', { contextId }) }, { 'a2a-version': '1.0' })).toMatchObject({ error: { code: -32601, message: 'This agent does not serve "message/send" in A2A 1.0.' } });
    expect(await call('SendMessage', { message: { contextId, parts: [{ text: 'hi' }] } }, { 'a2a-version': '0.3' })).toMatchObject({ error: { code: -32601, message: 'This agent does not serve "SendMessage" in A2A 0.3.' } });
    expect((await session(contextId)).status).toBe(404);
  });

  it('refuses push notifications in either version (-32003): the card says it sends none', async () => {
    for (const method of ['tasks/pushNotificationConfig/set', 'tasks/pushNotificationConfig/get', 'CreateTaskPushNotificationConfig', 'ListTaskPushNotificationConfigs']) {
      expect((await call(method, { id: 'x' })).error, method).toMatchObject({ code: -32003 });
    }
  });

  it('answers the extended card’s methods in either version as A2A’s own server does when the card declares none (-32004)', async () => {
    expect((await call('agent/getAuthenticatedExtendedCard', {})).error).toMatchObject({ code: -32004, message: expect.stringContaining('no extended card') });
    expect((await call('GetExtendedAgentCard', {}, { 'a2a-version': '1.0' })).error).toMatchObject({ code: -32004 });
    const card = await (await fetchWorker('/.well-known/agent-card.json', { headers: { 'a2a-version': '1.0' } })).json<any>();
    expect(card.capabilities.extendedAgentCard ?? false).toBe(false);
  });
});
