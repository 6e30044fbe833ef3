/**
 * The real pi agent (`@mariozechner/pi-agent-core`'s `Agent`) against the Worker under `wrangler
 * dev`: its `streamFn` is pi's own `streamProxy`, pointed at `POST /api/stream` with a token of this
 * deployment. The agent runs a prompt with a tool of its own through to the end (docs/pi-and-agui.md).
 */
import { Agent, streamProxy, type AgentEvent, type AgentTool } from '@mariozechner/pi-agent-core';
import type { Model } from '@mariozechner/pi-ai';
import { Type } from 'typebox';
import { expect, inject, it } from 'vitest';
import { mint } from '../helpers/tokens';

const base = inject('workerUrl');

/** The embedded demo model, as pi describes a model; its `baseUrl` is never fetched by the proxy. */
const demo: Model<string> = {
  id: 'demo',
  name: 'Demo',
  api: 'demo',
  provider: 'demo',
  baseUrl: 'http://127.0.0.1:9',
  reasoning: false,
  input: ['text'],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 100_000,
  maxTokens: 4096,
};

function agentWith(token: string, tools: AgentTool[]): { agent: Agent; events: AgentEvent[] } {
  const agent = new Agent({
    initialState: { systemPrompt: 'You are a test agent.', model: demo, tools },
    streamFn: (model, context, options) => streamProxy(model, context, { ...options, authToken: token, proxyUrl: base }),
  });
  const events: AgentEvent[] = [];
  agent.subscribe((event) => {
    events.push(event);
  });
  return { agent, events };
}

it('runs a prompt with a tool through to the end, the model reached through this service', async () => {
  const seen: unknown[] = [];
  const echo: AgentTool = {
    name: 'echo',
    label: 'Echo',
    description: 'Repeats a text.',
    parameters: Type.Object({ text: Type.String() }),
    execute: async (_id, params) => {
      seen.push(params);
      return { content: [{ type: 'text', text: `echo: ${(params as { text: string }).text}` }], details: {} };
    },
  };
  const { agent, events } = agentWith(await mint({ sub: 'pi-user' }), [echo]);
  await agent.prompt('call echo {"text":"hello pi"}');

  // pi ran its own tool with the arguments the model streamed through the proxy.
  expect(seen).toEqual([{ text: 'hello pi' }]);
  const messages = agent.state.messages;
  expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'toolResult', 'assistant']);
  const [, call, result, answer] = messages as any[];
  expect(call.stopReason).toBe('toolUse');
  expect(call.content.find((block: any) => block.type === 'toolCall')).toMatchObject({ name: 'echo', arguments: { text: 'hello pi' } });
  expect(result).toMatchObject({ role: 'toolResult', toolName: 'echo', isError: false, content: [{ type: 'text', text: 'echo: hello pi' }] });
  expect(answer.stopReason).toBe('stop');
  expect(answer.content.find((block: any) => block.type === 'text').text).toContain('echo: hello pi');
  expect(answer.usage.totalTokens).toBeGreaterThan(0);

  // pi's own loop events: two turns, the tool executed between them.
  const types = events.map((event) => event.type);
  expect(types[0]).toBe('agent_start');
  expect(types.at(-1)).toBe('agent_end');
  expect(types.filter((type) => type === 'turn_end')).toHaveLength(2);
  expect(types.indexOf('tool_execution_start')).toBeGreaterThan(types.indexOf('message_end'));
  expect(agent.state.errorMessage).toBeUndefined();
});

it('shows a refused token as pi shows a proxy error', async () => {
  const { agent } = agentWith('not-a-token', []);
  await agent.prompt('hello');
  const last = agent.state.messages.at(-1) as any;
  expect(last.stopReason).toBe('error');
  expect(last.errorMessage).toMatch(/^Proxy error: The token is not valid/);
});

it('shows a model the deployment does not offer as a proxy error', async () => {
  const { agent } = agentWith(await mint({ sub: 'pi-user' }), []);
  agent.state.model = { ...demo, provider: 'openai', id: 'gpt-9' };
  await agent.prompt('hello');
  const last = agent.state.messages.at(-1) as any;
  expect(last.stopReason).toBe('error');
  expect(last.errorMessage).toMatch(/^Proxy error: The model "openai:gpt-9" is not offered here/);
});
