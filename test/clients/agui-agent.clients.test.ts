/**
 * The real AG-UI client (`@ag-ui/client`'s `HttpAgent`) against the Worker under `wrangler dev`
 * (docs/pi-and-agui.md). The client verifies the stream itself (its schemas and ordering rules fail a
 * run that breaks them, and it warns of any field it strips); each event is also checked here with
 * `@ag-ui/core`'s schemas. Covered: a plain run, the whole conversation sent again, an untrusted tool
 * interrupted and resumed, a client tool answered on the next run, and a run the client aborts.
 */
import { HttpAgent, buildResumeArray, randomUUID, type AgentSubscriber, type BaseEvent, type Interrupt } from '@ag-ui/client';
import { EventSchemas } from '@ag-ui/core/schemas';
import { afterEach, beforeEach, expect, inject, it, vi } from 'vitest';
import { mint } from '../helpers/tokens';

const base = inject('workerUrl');
let warnings: string[] = [];

beforeEach(() => {
  warnings = [];
  vi.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => {
    warnings.push(args.map(String).join(' '));
  });
});
afterEach(() => {
  vi.restoreAllMocks();
  // The client warns of any field it had to strip or any event it had to repair: none.
  expect(warnings.filter((warning) => warning.includes('[ag-ui]'))).toEqual([]);
});

async function newAgent(threadId = `agui-${randomUUID()}`): Promise<HttpAgent> {
  return new HttpAgent({ url: `${base}/ag-ui`, headers: { Authorization: `Bearer ${await mint({ sub: 'agui-user' })}` }, threadId });
}

/** Runs the agent once; returns the run's events (each valid under AG-UI's schema) and its outcome. */
async function runOnce(agent: HttpAgent, parameters: Parameters<HttpAgent['runAgent']>[0] = {}) {
  const events: BaseEvent[] = [];
  let outcome: { outcome: string; interrupts?: Interrupt[]; pendingToolCallIds?: string[] } | undefined;
  const subscriber: AgentSubscriber = {
    onEvent: ({ event }) => {
      const parsed = EventSchemas.safeParse(event);
      if (!parsed.success) throw new Error(`${event.type}: ${parsed.error.message}`);
      events.push(event);
    },
    onRunFinishedEvent: (params) => {
      const { outcome: kind } = params;
      outcome = { outcome: kind };
      if (params.outcome === 'interrupt') outcome.interrupts = params.interrupts;
      if (params.outcome === 'success') outcome.pendingToolCallIds = params.pendingToolCallIds;
    },
  };
  const result = await agent.runAgent(parameters, subscriber);
  return { events, outcome, result };
}

const textOf = (events: BaseEvent[]) =>
  events.flatMap((event) => (event.type === 'TEXT_MESSAGE_CONTENT' ? [(event as unknown as { delta: string }).delta] : [])).join('');

it('runs a conversation: the client’s messages grow by the agent’s, and the next run sends them all back', async () => {
  const agent = await newAgent();
  agent.addMessage({ id: randomUUID(), role: 'user', content: 'hello' });
  const first = await runOnce(agent);
  expect(first.outcome).toEqual({ outcome: 'success', pendingToolCallIds: [] });
  expect(first.events[0]!.type).toBe('RUN_STARTED');
  expect(first.events.at(-1)!.type).toBe('RUN_FINISHED');
  expect(agent.messages.map((message) => message.role)).toEqual(['user', 'reasoning', 'assistant']);
  expect(agent.messages[2]!.content).toContain('hello');

  agent.addMessage({ id: randomUUID(), role: 'user', content: 'calculate 7*6' });
  const second = await runOnce(agent);
  expect(agent.messages.map((message) => message.role)).toEqual(['user', 'reasoning', 'assistant', 'user', 'reasoning', 'assistant', 'tool', 'reasoning', 'assistant']);
  const call = agent.messages[5] as { toolCalls?: { function: { name: string; arguments: string } }[] };
  expect(call.toolCalls?.[0]?.function).toEqual({ name: 'calculator', arguments: '{"expression":"7*6"}' });
  expect(agent.messages[6]).toMatchObject({ role: 'tool', content: '42' });
  expect(textOf(second.events)).toContain('42');
});

it('interrupts for an untrusted tool and resumes with the user’s answer', async () => {
  const agent = await newAgent();
  agent.addMessage({ id: randomUUID(), role: 'user', content: 'remember buy milk' });
  const asked = await runOnce(agent);
  expect(asked.outcome?.outcome).toBe('interrupt');
  const [interrupt] = asked.outcome!.interrupts!;
  expect(interrupt).toMatchObject({ reason: 'tool_permission', toolCallId: interrupt!.id, metadata: { toolName: 'memory_save', input: { text: 'buy milk' } } });

  const resumed = await runOnce(agent, { resume: buildResumeArray([interrupt!], { [interrupt!.id]: { status: 'resolved', payload: { approved: true } } }) });
  expect(resumed.outcome?.outcome).toBe('success');
  const result = agent.messages.find((message) => message.role === 'tool') as { toolCallId: string; content: string };
  expect(result.toolCallId).toBe(interrupt!.id);
  expect(result.content).toMatch(/^Saved note/);
});

it('leaves a client tool to the client, and goes on with the tool message it adds', async () => {
  const agent = await newAgent();
  const tools = [{ name: 'get_weather', description: 'The weather in a city.', parameters: { type: 'object', properties: { city: { type: 'string' } } } }];
  agent.addMessage({ id: randomUUID(), role: 'user', content: 'call get_weather {"city":"Lisbon"}' });
  const asked = await runOnce(agent, { tools });
  const callId = asked.outcome!.pendingToolCallIds![0]!;
  expect(asked.outcome).toEqual({ outcome: 'success', pendingToolCallIds: [callId] });
  const assistant = agent.messages.find((message) => message.role === 'assistant') as { toolCalls: { id: string; function: { name: string; arguments: string } }[] };
  expect(assistant.toolCalls[0]).toMatchObject({ id: callId, function: { name: 'get_weather', arguments: '{"city":"Lisbon"}' } });

  agent.addMessage({ id: randomUUID(), role: 'tool', toolCallId: callId, content: 'sunny, 24°C' });
  const answered = await runOnce(agent, { tools });
  expect(answered.outcome).toEqual({ outcome: 'success', pendingToolCallIds: [] });
  expect(textOf(answered.events)).toContain('sunny, 24°C');
});

it('cancels the turn when the client aborts the run', async () => {
  const threadId = `agui-${randomUUID()}`;
  const agent = await newAgent(threadId);
  agent.addMessage({ id: randomUUID(), role: 'user', content: 'tell me a long story' });
  const running = agent.runAgent({ forwardedProps: { model: 'openai:script/slow' } }, {
    onTextMessageContentEvent: () => agent.abortRun(),
  });
  await running.catch(() => undefined);
  // The session saw the client go: its turn stops as cancelled.
  const token = await mint({ sub: 'agui-user' });
  let view: any;
  for (let tries = 0; tries < 100; tries++) {
    view = await (await fetch(`${base}/sessions/${threadId}`, { headers: { authorization: `Bearer ${token}` } })).json();
    if (!view.running) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(view).toMatchObject({ running: false, lastTurn: { status: 'cancelled' } });
});
