/**
 * Every turn of every door that ends sends its webhook (docs/background.md): random sequences on one
 * session of turns through each door (the turns API answered or in the background, the Harness,
 * AG-UI, the chat socket, A2A, MCP), of answers to the calls they leave pending (a client tool's
 * result, a permission granted or denied), of slow turns cancelled, interrupted, steered or queued
 * behind. Once the session is idle, each turn it stored has webhooks delivered for it: for each time
 * it stopped for a call, `turn.requires_action`, and last the one its end names; and no delivery
 * twice.
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { webhookType } from '../../src/session/webhooks';
import { sessionObject } from '../../src/users/owner';
import { fetchWorker, newSessionId, readSse, session, user, waitIdle } from '../helpers/api';
import { running, SLOW } from '../helpers/busy';
import { hooksOf } from '../helpers/hooks';
import { complete, openSocket } from '../helpers/socket';

/** `unrun`: queued turns cancelled before they ran, which the session does not keep. */
type Model = { id: string; pending: { toolCallId: string; awaiting: 'client' | 'permission' }[]; unrun: string[] };

const json = { 'content-type': 'application/json' };
const post = (path: string, body: unknown, headers: Record<string, string> = {}) => fetchWorker(path, { method: 'POST', headers: { ...json, ...headers }, body: JSON.stringify(body) });
const CLIENT_TOOL = { name: 'get_weather', description: 'The weather in a city.', parameters: { type: 'object', properties: { city: { type: 'string' } } } };

/** What a turn asks the demo model: an answer, a trusted tool, an untrusted one, a client tool, a failure, a refusal. */
const ASKS = {
  text: 'hello',
  tool: 'compute 6*7',
  permission: 'remember: the door code',
  client: 'call get_weather {"city":"Oslo"}',
  error: 'demo:error',
  refusal: 'demo:refuse',
} as const;
type Ask = keyof typeof ASKS;
const DOORS = ['turns', 'background', 'harness', 'agui', 'socket', 'a2a', 'mcp'] as const;
type Door = (typeof DOORS)[number];
/** The doors whose requests bring client tools. */
const WITH_TOOLS = new Set<Door>(['turns', 'background', 'harness', 'agui']);

async function through(door: Door, id: string, text: string, tools: unknown[]): Promise<void> {
  const withTools = tools.length > 0 ? { tools } : {};
  switch (door) {
    case 'turns':
      return void (await (await post(`/sessions/${id}/turns`, { messages: [user(text)], stream: 'none', ...withTools })).text());
    case 'background':
      return void (await (await post(`/sessions/${id}/turns`, { messages: [user(text)], ...withTools }, { prefer: 'respond-async' })).text());
    case 'harness':
      return void (await (await post('/harness/chat', { sessionId: id, userId: 'local', input: text, ...withTools })).text());
    case 'agui': {
      const message = { id: crypto.randomUUID(), role: 'user', content: text };
      return void (await readSse(await post('/ag-ui', { threadId: id, runId: crypto.randomUUID(), messages: [message], tools, context: [], state: {}, forwardedProps: {} })));
    }
    case 'socket': {
      const socket = await openSocket(id);
      await complete(socket, text);
      return socket.ws.close();
    }
    case 'a2a':
      return void (await (await post('/a2a', { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { contextId: id, messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] } } })).text());
    case 'mcp':
      return void (await (await post('/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'chat', arguments: { message: text, sessionId: id } } }, { accept: 'application/json, text/event-stream' })).text());
  }
}

/** The session's pending calls, once its turn (and any queued behind it) has ended. */
async function observe(model: Model): Promise<void> {
  await waitIdle(model.id);
  const { status, body } = await session(model.id);
  model.pending = status === 200 ? body.pendingToolCalls : [];
}

class Say implements fc.AsyncCommand<Model, Model> {
  constructor(
    readonly door: Door,
    readonly ask: Ask,
  ) {}
  check = (model: Readonly<Model>) => model.pending.length === 0;
  async run(_: Model, model: Model) {
    const client = this.ask === 'client' && WITH_TOOLS.has(this.door);
    await through(this.door, model.id, ASKS[this.ask === 'client' && !client ? 'text' : this.ask], client ? [CLIENT_TOOL] : []);
    await observe(model);
  }
  toString = () => `Say(${this.door}, ${this.ask})`;
}

class Answer implements fc.AsyncCommand<Model, Model> {
  constructor(readonly granted: boolean) {}
  check = (model: Readonly<Model>) => model.pending.length > 0;
  async run(_: Model, model: Model) {
    const messages = model.pending.map((call) =>
      call.awaiting === 'client' ? { role: 'tool', toolCallId: call.toolCallId, content: this.granted ? 'snow' : 'no answer', ...(this.granted ? {} : { isError: true }) } : { role: 'tool_permission', toolCallId: call.toolCallId, granted: this.granted },
    );
    await (await post(`/sessions/${model.id}/turns`, { messages, stream: 'none', tools: [CLIENT_TOOL] })).text();
    await observe(model);
  }
  toString = () => `Answer(${this.granted ? 'granted' : 'denied'})`;
}

class Cut implements fc.AsyncCommand<Model, Model> {
  constructor(readonly how: 'cancel' | 'interrupt' | 'steer' | 'enqueue' | 'cancel-queued') {}
  check = (model: Readonly<Model>) => model.pending.length === 0;
  async run(_: Model, model: Model) {
    const slow = await running(model.id, 'slowly');
    const second = (ifBusy: string) => post(`/sessions/${model.id}/turns`, { messages: [user('and then?')], model: SLOW, ifBusy }, { prefer: 'respond-async' });
    if (this.how === 'cancel') await fetchWorker(`/sessions/${model.id}/turns/${slow.turnId}/cancel`, { method: 'POST' });
    else if (this.how === 'cancel-queued') {
      const { turnId } = await (await second('enqueue')).json<{ turnId: string }>();
      const cancelled = await fetchWorker(`/sessions/${model.id}/turns/${turnId}/cancel`, { method: 'POST' });
      if ((await cancelled.json<{ status: string }>()).status === 'cancelled' && !(await storedTurns(model.id)).some((row) => row.turn_id === turnId)) model.unrun.push(turnId);
    } else await (await second(this.how)).text();
    await slow.rest;
    await observe(model);
  }
  toString = () => `Cut(${this.how})`;
}

/** Each turn the session stored, as its row tells it. */
async function storedTurns(id: string): Promise<{ turn_id: string; status: string; stop_reason: string | null }[]> {
  return runInDurableObject(sessionObject(env, { userId: 'local' }, id), (_instance, state) => {
    try {
      return state.storage.sql.exec<{ turn_id: string; status: string; stop_reason: string | null }>('SELECT turn_id, status, stop_reason FROM turns').toArray();
    } catch {
      return []; // a session that never ran a turn has no table of them
    }
  });
}

/**
 * Once idle: every ended turn's webhooks delivered, `turn.requires_action` for each stop for a call,
 * its end's last; `turn.failed` for each queued turn cancelled before it ran; none twice.
 */
async function deliveredInFull({ id, unrun }: Model): Promise<void> {
  await waitIdle(id);
  const turns = await storedTurns(id);
  expect(turns.filter((row) => row.status === 'running' || row.status === 'queued')).toEqual([]);
  await vi.waitFor(
    async () => {
      const hooks = (await hooksOf(id)).filter((hook) => hook.answered < 300);
      expect(new Set(hooks.map((hook) => hook.webhookId)).size).toBe(hooks.length);
      for (const row of turns) {
        const types = hooks.filter((hook) => hook.data?.turnId === row.turn_id).map((hook) => hook.type);
        expect(types.at(-1), `${row.turn_id} ${row.status} ${row.stop_reason}`).toBe(webhookType((row.stop_reason ?? 'error') as never));
        expect(types.slice(0, -1).every((type) => type === 'turn.requires_action'), `${row.turn_id}: ${types.join(', ')}`).toBe(true);
      }
      for (const turnId of unrun) expect(hooks.filter((hook) => hook.data?.turnId === turnId).map((hook) => hook.type)).toEqual(['turn.failed']);
      // No webhook for a turn that is neither kept nor one of those.
      const known = new Set([...turns.map((row) => row.turn_id), ...unrun]);
      expect(hooks.filter((hook) => !known.has(hook.data?.turnId))).toEqual([]);
    },
    { timeout: 8000, interval: 100 },
  );
}

const commands = [
  fc.tuple(fc.constantFrom(...DOORS), fc.constantFrom(...(Object.keys(ASKS) as Ask[]))).map(([door, ask]) => new Say(door, ask)),
  fc.boolean().map((granted) => new Answer(granted)),
  fc.constantFrom('cancel' as const, 'interrupt' as const, 'steer' as const, 'enqueue' as const, 'cancel-queued' as const).map((how) => new Cut(how)),
];

describe('webhooks, whatever a session does', () => {
  it('sends every ended turn’s webhooks through every door: one for each stop for a call, then its end’s; none twice', async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 8, size: 'max' }), async (cmds) => {
        const model: Model = { id: newSessionId('hooked'), pending: [], unrun: [] };
        await fc.asyncModelRun(() => ({ model, real: model }), cmds);
        await deliveredInFull(model);
      }),
      { numRuns: 6 },
    );
    // Six runs of up to eight commands in CI, about 20 s; runs of 60 and 30 passed when it was written,
    // and it fails with the webhook of a stop for a call, or of a queued turn cancelled, taken out.
    // The limit is a guard against a hang, not a measure of speed.
  }, 240_000);
});
