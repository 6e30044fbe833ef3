/**
 * The A2A SDK's own client (`@a2a-js/sdk` 1.x), unchanged, against the agent's A2A door under
 * `wrangler dev` (docs/a2a.md): discovery from the card, a plain answer, streaming, a context
 * continued and its tasks listed, a permission answered in the same task, cancel and resubscribe, another user's token.
 * Then the same SDK's client of A2A v0.3 (its `LegacyJsonRpcTransport`, the wire of the clients
 * built before v1.0), from the card such a client reads.
 */
import { AgentCard, Message, Task, TaskState } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { LegacyJsonRpcTransport, parseLegacyAgentCard } from '@a2a-js/sdk/compat/v0_3/client';
import { describe, expect, inject, it } from 'vitest';
import { mint } from '../helpers/tokens';

const base = inject('workerUrl');

async function clientFor(token: string) {
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory({ fetchImpl })] });
  return new ClientFactory(options).createFromUrl(base);
}

const message = (parts: unknown[], ids: { contextId?: string; taskId?: string } = {}) =>
  Message.fromJSON({ messageId: crypto.randomUUID(), role: 'ROLE_USER', parts, ...ids });
const text = (value: string) => ({ text: value });
const stateOf = (task: any) => Task.toJSON(task) as any;
/** The text of a task's artifacts, from its JSON (`stateOf`). */
const textOfTask = (task: any): string => task.artifacts?.flatMap((artifact: any) => artifact.parts.map((part: any) => part.text ?? '')).join('') ?? '';

describe('the A2A door, with the SDK’s own client', () => {
  it('discovers the agent, answers a message as a completed task, and continues its context', async () => {
    // As the SDK's resolver asks for it (`A2A-Version: 1.0`); the same endpoint speaks v0.3 too.
    const card = (await (await fetch(`${base}/.well-known/agent-card.json`, { headers: { 'a2a-version': '1.0' } })).json()) as any;
    expect(card).toMatchObject({ capabilities: { streaming: true }, supportedInterfaces: [{ url: `${base}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }, { url: `${base}/a2a`, protocolVersion: '0.3' }] });
    // Read by the SDK's own codec: auth is on here, so the card names a bearer scheme, and requires it.
    const parsed = AgentCard.fromJSON(card);
    expect(parsed.securitySchemes.bearer?.scheme).toMatchObject({ $case: 'httpAuthSecurityScheme', value: { scheme: 'Bearer' } });
    expect(Object.keys(parsed.securityRequirements[0]!.schemes)).toEqual(['bearer']);
    expect(parsed.skills.map((skill) => skill.id)).toEqual(['chat']);
    const client = await clientFor(await mint({ sub: `a2a-${Date.now()}` }));
    const first = await client.sendMessage({ message: message([text('calculate 2+3')]) } as any);
    const task = stateOf(first);
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.id).toMatch(/^turn_[0-9a-f]{24}:a2a-/);
    expect(textOfTask(task)).toContain('calculator: 5');
    // Its history, as the SDK reads it: the user's message.
    expect(task.history).toEqual([expect.objectContaining({ role: 'ROLE_USER', parts: [expect.objectContaining({ text: 'calculate 2+3' })] })]);
    const again = stateOf(await client.sendMessage({ message: message([text('hello again')], { contextId: task.contextId }) } as any));
    expect(again.contextId).toBe(task.contextId);
    expect(again.id).not.toBe(task.id);
    const got = stateOf(await client.getTask({ id: task.id } as any));
    expect(got).toMatchObject({ id: task.id, status: { state: 'TASK_STATE_COMPLETED' } });
    // The context's tasks, newest first, as the SDK lists them: a page of one, then the next.
    const page = await client.listTasks({ contextId: task.contextId, status: TaskState.TASK_STATE_UNSPECIFIED, pageSize: 1 } as any);
    expect(page.tasks.map((listed) => listed.id)).toEqual([again.id]);
    expect([page.pageSize, page.totalSize]).toEqual([1, 2]);
    const next = await client.listTasks({ contextId: task.contextId, status: TaskState.TASK_STATE_UNSPECIFIED, pageSize: 1, pageToken: page.nextPageToken, includeArtifacts: true } as any);
    expect(stateOf(next.tasks[0])).toEqual(got);
    expect(next.nextPageToken).toBe('');
  });

  it('streams a task: the task, its answer as artifact chunks, its last status', async () => {
    const client = await clientFor(await mint({ sub: `a2a-stream-${Date.now()}` }));
    const events: any[] = [];
    for await (const event of client.sendMessageStream({ message: message([text('calculate 6*7')]) } as any)) events.push(event);
    const kinds = events.map((event) => event.payload?.$case);
    expect(kinds[0]).toBe('task');
    expect(kinds).toContain('artifactUpdate');
    expect(kinds.at(-1)).toBe('statusUpdate');
    expect(events.at(-1).payload.value.status.state).toBe(3); // TASK_STATE_COMPLETED
    const chunks = events.filter((event) => event.payload?.$case === 'artifactUpdate').map((event) => event.payload.value.artifact.parts.map((part: any) => part.content?.value ?? '').join('')).join('');
    expect(chunks).toContain('calculator: 42');
  });

  it('asks for a permission with input-required, and takes the answer in the same task', async () => {
    const client = await clientFor(await mint({ sub: `a2a-perm-${Date.now()}` }));
    const asked = stateOf(await client.sendMessage({ message: message([text('remember the door code')]) } as any));
    expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const [call] = asked.status.message.parts[0].data.pendingToolCalls;
    expect(call).toMatchObject({ name: 'memory_save', awaiting: 'permission', input: { text: 'the door code' } });
    const done = stateOf(await client.sendMessage({ message: message([{ data: { toolCallId: call.toolCallId, granted: true } }], { taskId: asked.id, contextId: asked.contextId }) } as any));
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    expect(done.contextId).toBe(asked.contextId);
  });

  it('asks for a client tool’s result with input-required, and takes it in the same task', async () => {
    const client = await clientFor(await mint({ sub: `a2a-tool-${Date.now()}` }));
    const tools = [{ name: 'get_weather', description: 'The weather in a city.', parameters: { type: 'object', properties: { city: { type: 'string' } } } }];
    const asked = stateOf(await client.sendMessage({ message: message([text('call get_weather {"city":"Lima"}')]), metadata: { tools } } as any));
    expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const [call] = asked.status.message.parts[0].data.pendingToolCalls;
    expect(call).toMatchObject({ name: 'get_weather', awaiting: 'client', input: { city: 'Lima' } });
    const done = stateOf(await client.sendMessage({ message: message([{ data: { toolCallId: call.toolCallId, result: '18°C and sunny' } }], { taskId: asked.id }) } as any));
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    expect(textOfTask(done)).toContain('18°C and sunny');
  });

  it('resubscribes to a running task, cancels it, and refuses to resubscribe once it has ended', async () => {
    const client = await clientFor(await mint({ sub: `a2a-cancel-${Date.now()}` }));
    const stream = client.sendMessageStream({ message: message([text('slowly')]), metadata: { model: 'openai:script/slow' } } as any);
    const first = (await stream.next()).value as any;
    const taskId = first.payload.value.id;
    const resubscribed = client.resubscribeTask({ id: taskId } as any);
    expect(((await resubscribed.next()).value as any).payload.$case).toBe('task');
    const canceled = stateOf(await client.cancelTask({ id: taskId } as any));
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    const rest: any[] = [];
    for await (const event of resubscribed) rest.push(event);
    expect(rest.at(-1).payload.value.status.state).toBe(5); // TASK_STATE_CANCELED
    for await (const _ of stream) void _;
    // A2A has a task that ended (completed, failed, canceled) refuse a subscription, and a message.
    const again = async () => {
      for await (const _ of client.resubscribeTask({ id: taskId } as any)) void _;
    };
    await expect(again()).rejects.toThrow(/has ended \(TASK_STATE_CANCELED\)/);
    await expect(client.sendMessage({ message: message([text('more')], { taskId }) } as any)).rejects.toThrow(/takes no more messages/);
  });

  it('sends an image as a file part, as the SDK writes one, and the turn takes it', async () => {
    const token = await mint({ sub: `a2a-image-${Date.now()}` });
    const client = await clientFor(token);
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
    const task = stateOf(await client.sendMessage({ message: message([text('what is this?'), { raw: png, mediaType: 'image/png', filename: 'dot.png' }]) } as any));
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    const stored = (await (await fetch(`${base}/sessions/${task.contextId}/messages`, { headers: { authorization: `Bearer ${token}` } })).json()) as any;
    expect(stored.messages[0].content).toEqual([{ type: 'text', text: 'what is this?' }, { type: 'image', mimeType: 'image/png', data: png }]);
  });

  it('refuses a request without a token, and another user’s task', async () => {
    const refused = await fetch(`${base}/a2a`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }) });
    expect(refused.status).toBe(401);
    const alice = await clientFor(await mint({ sub: `a2a-alice-${Date.now()}` }));
    const task = stateOf(await alice.sendMessage({ message: message([text('hello')]) } as any));
    const bob = await clientFor(await mint({ sub: `a2a-bob-${Date.now()}` }));
    await expect(bob.getTask({ id: task.id } as any)).rejects.toThrow(/No task/);
  });
});

/** A v0.3 client: the card as it reads it (no `A2A-Version`), and the SDK's v0.3 wire to the endpoint it names. */
async function v03ClientFor(token: string) {
  const raw = (await (await fetch(`${base}/.well-known/agent-card.json`)).json()) as any;
  const card = parseLegacyAgentCard(raw);
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
  return { card, raw, client: new LegacyJsonRpcTransport({ endpoint: raw.url, fetchImpl }) };
}

describe('the A2A door, with the SDK’s client of A2A v0.3', () => {
  it('reads the card as v0.3’s, answers a message as a completed task, and continues its context', async () => {
    const { card, raw, client } = await v03ClientFor(await mint({ sub: `a2a-v03-${Date.now()}` }));
    expect(raw).toMatchObject({ protocolVersion: '0.3.0', url: `${base}/a2a`, preferredTransport: 'JSONRPC', securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } }, security: [{ bearer: [] }] });
    expect(card.supportedInterfaces[0]).toMatchObject({ url: `${base}/a2a`, protocolBinding: 'JSONRPC' });
    const task = stateOf(await client.sendMessage({ message: message([text('calculate 2+3')]) } as any));
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(textOfTask(task)).toContain('calculator: 5');
    const again = stateOf(await client.sendMessage({ message: message([text('hello again')], { contextId: task.contextId }) } as any));
    expect([again.contextId, again.id === task.id]).toEqual([task.contextId, false]);
    expect(stateOf(await client.getTask({ id: task.id } as any))).toMatchObject({ id: task.id, status: { state: 'TASK_STATE_COMPLETED' } });
  });

  it('streams a task, and takes a permission’s answer in the same task', async () => {
    const { client } = await v03ClientFor(await mint({ sub: `a2a-v03-stream-${Date.now()}` }));
    const events: any[] = [];
    for await (const event of client.sendMessageStream({ message: message([text('calculate 6*7')]) } as any)) events.push(event);
    expect(events.map((event) => event.payload.$case)).toEqual(['task', ...events.slice(1, -1).map(() => 'artifactUpdate'), 'statusUpdate']);
    expect(events.at(-1).payload.value.status.state).toBe(3); // TASK_STATE_COMPLETED
    const chunks = events.filter((event) => event.payload.$case === 'artifactUpdate').map((event) => event.payload.value.artifact.parts.map((part: any) => part.content?.value ?? '').join('')).join('');
    expect(chunks).toContain('calculator: 42');
    const asked = stateOf(await client.sendMessage({ message: message([text('remember the door code')]) } as any));
    expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const [call] = asked.status.message.parts[0].data.pendingToolCalls;
    const done = stateOf(await client.sendMessage({ message: message([{ data: { toolCallId: call.toolCallId, granted: true } }], { taskId: asked.id }) } as any));
    expect([done.status.state, done.contextId]).toEqual(['TASK_STATE_COMPLETED', asked.contextId]);
  });

  it('resubscribes to a task it asked for at once, cancels it, and is refused a resubscription once it ended', async () => {
    const { client } = await v03ClientFor(await mint({ sub: `a2a-v03-cancel-${Date.now()}` }));
    const started = stateOf(await client.sendMessage({ message: message([text('slowly')]), metadata: { model: 'openai:script/slow' }, configuration: { returnImmediately: true } } as any));
    expect(started.status.state).toBe('TASK_STATE_WORKING');
    const resubscribed = client.resubscribeTask({ id: started.id } as any);
    expect(((await resubscribed.next()).value as any).payload.$case).toBe('task');
    expect(stateOf(await client.cancelTask({ id: started.id } as any)).status.state).toBe('TASK_STATE_CANCELED');
    const rest: any[] = [];
    for await (const event of resubscribed) rest.push(event);
    expect(rest.at(-1).payload.value.status.state).toBe(5); // TASK_STATE_CANCELED
    const again = async () => {
      for await (const _ of client.resubscribeTask({ id: started.id } as any)) void _;
    };
    await expect(again()).rejects.toThrow(/has ended/);
  });
});
