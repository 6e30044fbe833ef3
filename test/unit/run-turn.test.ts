/**
 * The agent loop on its own, with a scripted provider and tools: parallel trusted calls with results
 * in call order, tool failures as results, unknown tools and bad arguments, cancellation, the prompt
 * each call is sent once the context was compacted, and the promises of the event stream (one
 * turn-start first, one turn-stop last, balanced blocks).
 */
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/agent/events';
import { DEFAULT_RETRY_POLICY, retryDelay } from '../../src/agent/retry-policy';
import { runTurn, type TurnDeps, type TurnInput } from '../../src/agent/run-turn';
import type { ModelProvider, ModelRequest, ModelStreamPart } from '../../src/providers/types';
import { createToolRegistry } from '../../src/tools/registry';
import { loopDeps, loopInput, loopTool as tool, sleep } from '../helpers/loop';
import type { ServerTool } from '../../src/tools/types';

type Script = (request: ModelRequest, call: number) => ModelStreamPart[] | Promise<ModelStreamPart[]>;

function scripted(script: Script): ModelProvider & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  return {
    requests,
    async *stream(request) {
      requests.push(structuredClone({ ...request, signal: undefined }) as unknown as ModelRequest);
      const parts = await script(request, requests.length);
      if (parts.length > 0) yield parts;
    },
  };
}

const calls = (...list: [string, string, Record<string, unknown>][]): ModelStreamPart[] => [
  ...list.map(([id, name, input], index): ModelStreamPart => ({ type: 'tool-call-delta', index, id, name, argumentsDelta: JSON.stringify(input) })),
  { type: 'finish', reason: 'tool_use' },
];
const text = (value: string): ModelStreamPart[] => [{ type: 'text-delta', delta: value }, { type: 'finish', reason: 'end_turn' }];


async function run(provider: ModelProvider, tools: ServerTool<any>[], options: { signal?: AbortSignal; input?: Partial<TurnInput>; context?: Partial<TurnDeps['context']> } = {}) {
  const events: AgentEvent[] = [];
  const deps = loopDeps(provider, (event) => events.push(event), {
    tools: createToolRegistry(tools),
    ...(options.signal ? { signal: options.signal } : {}),
    retry: { ...DEFAULT_RETRY_POLICY, maxRetries: 2, baseDelayMs: 1 },
    context: { windowOverride: { byModel: {} }, threshold: 0.8, toolResultMaxChars: 20_000, ...options.context },
  });
  const outcome = await runTurn(loopInput(options.input), deps);
  checkStream(events);
  return { outcome, events };
}

function checkStream(events: AgentEvent[]) {
  expect(events[0]?.type).toBe('turn-start');
  expect(events.at(-1)?.type).toBe('turn-stop');
  expect(events.filter((e) => e.type === 'turn-stop')).toHaveLength(1);
  const open = new Set<string>();
  for (const event of events) {
    if (/-start$/.test(event.type) && 'blockId' in event) open.add(event.blockId);
    if (/-end$/.test(event.type) && 'blockId' in event) open.delete(event.blockId);
    if (event.type === 'model-call-end') expect(open.size).toBe(0);
  }
}

const results = (events: AgentEvent[]) =>
  events.flatMap((e) => (e.type === 'tool-execution-end' ? [{ id: e.toolCallId, content: e.content, state: e.state }] : []));

describe('the agent loop', () => {
  it('runs the trusted calls of one response in parallel and sends the results back in call order', async () => {
    const provider = scripted((_request, call) => (call === 1 ? calls(['a', 'wait', { ms: 60 }], ['b', 'wait', { ms: 5 }]) : text('done')));
    const started: number[] = [];
    const wait = tool('wait', async ({ ms }) => {
      started.push(Date.now());
      await sleep(ms);
      return `waited ${ms}`;
    });
    const { outcome, events } = await run(provider, [wait]);
    expect(outcome.stopReason).toBe('end_turn');
    expect(results(events).map((r) => r.id)).toEqual(['b', 'a']); // b finished first
    expect(Math.abs(started[0]! - started[1]!)).toBeLessThan(30); // both started at once
    const sent = provider.requests[1]!.messages;
    expect(sent.map((m) => (m.role === 'tool' ? m.toolCallId : m.role))).toEqual(['user', 'assistant', 'a', 'b']);
  });

  it('gives the model an error result when a tool throws, and goes on', async () => {
    const provider = scripted((_r, call) => (call === 1 ? calls(['a', 'boom', {}]) : text('sorry')));
    const boom = tool('boom', async () => {
      throw new Error('disk on fire');
    });
    const { outcome, events } = await run(provider, [boom]);
    expect(outcome.stopReason).toBe('end_turn');
    expect(results(events)).toEqual([{ id: 'a', content: 'boom failed: disk on fire', state: 'error' }]);
    expect(provider.requests[1]!.messages.at(-1)).toEqual({ role: 'tool', toolCallId: 'a', content: 'boom failed: disk on fire', isError: true });
  });

  it('answers an unknown tool, bad arguments and a tool that times out with error results', async () => {
    const provider = scripted((_r, call) =>
      call === 1
        ? [
            { type: 'tool-call-delta', index: 0, id: 'a', name: 'nope', argumentsDelta: '{}' },
            { type: 'tool-call-delta', index: 1, id: 'b', name: 'wait', argumentsDelta: '{"ms": ' },
            { type: 'tool-call-delta', index: 2, id: 'c', name: 'wait', argumentsDelta: '{"ms": 5000}' },
            { type: 'finish', reason: 'tool_use' },
          ]
        : text('ok'),
    );
    const wait = tool('wait', (_input, signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve('late'))));
    const { events } = await run(provider, [wait]);
    expect(results(events)).toEqual([
      { id: 'a', content: 'Unknown tool "nope".', state: 'error' },
      { id: 'b', content: 'The arguments were not a JSON object: {"ms": ', state: 'error' },
      { id: 'c', content: 'wait did not finish within 500 ms.', state: 'error' },
    ]);
  });

  it('on cancel during tools: interrupts the running calls, closes the waiting ones, stops with error "cancelled"', async () => {
    const controller = new AbortController();
    const provider = scripted(() => calls(['a', 'wait', { ms: 10_000 }], ['b', 'ask', {}]));
    const wait = tool('wait', async (_input, signal) => {
      setTimeout(() => controller.abort(), 10);
      await new Promise((resolve) => signal.addEventListener('abort', resolve));
      return 'never';
    });
    const ask = tool('ask', async () => 'asked', false);
    const { outcome, events } = await run(provider, [wait, ask], { signal: controller.signal });
    expect(outcome).toMatchObject({ stopReason: 'error', error: { code: 'cancelled' } });
    expect(results(events)).toEqual([
      { id: 'a', content: 'Tool execution was interrupted', state: 'interrupted' },
      { id: 'b', content: 'Tool execution was interrupted', state: 'interrupted' },
    ]);
    expect(events.some((e) => e.type === 'turn-suspend')).toBe(false);
  });

  it('on cancel during the model call: keeps the partial text, drops the rest, stops with error "cancelled"', async () => {
    const controller = new AbortController();
    const provider: ModelProvider = {
      async *stream(request) {
        yield [
          { type: 'thinking-delta', delta: 'plotting' },
          { type: 'text-delta', delta: 'Once upon' },
          { type: 'tool-call-delta', index: 0, id: 'call_x', name: 'wait', argumentsDelta: '{"ms":' },
        ];
        controller.abort();
        await sleep(1);
        if (request.signal.aborted) return;
        yield [{ type: 'finish', reason: 'end_turn' }];
      },
    };
    const { outcome, events } = await run(provider, [], { signal: controller.signal });
    expect(outcome).toMatchObject({ stopReason: 'error', error: { code: 'cancelled' } });
    const stored = events.filter((e) => e.type === 'assistant-message');
    expect(stored).toEqual([expect.objectContaining({ message: { role: 'assistant', content: 'Once upon' }, finishReason: 'cancelled' })]);
    expect(events.find((e) => e.type === 'tool-input-end')).toMatchObject({ toolCallId: 'call_x', incomplete: true });
    expect(events.some((e) => e.type === 'tool-call' || e.type === 'tool-execution-start')).toBe(false);
  });

  it('on a failure mid-stream: keeps nothing of the call', async () => {
    const provider: ModelProvider = {
      async *stream() {
        yield [
          { type: 'text-delta', delta: 'Once upon' },
          { type: 'error', code: 'upstream_error', message: 'boom' },
        ];
      },
    };
    const { outcome, events } = await run(provider, []);
    expect(outcome).toMatchObject({ stopReason: 'error', error: { code: 'upstream_error' } });
    expect(events.some((e) => e.type === 'assistant-message')).toBe(false);
  });

  it('treats a provider that throws as an error stop, never a crash', async () => {
    const provider: ModelProvider = {
      // eslint-disable-next-line require-yield
      async *stream() {
        throw new Error('bug');
      },
    };
    const { outcome } = await run(provider, []);
    expect(outcome).toMatchObject({ stopReason: 'error', error: { code: 'internal_error' } });
  });

  it('runs granted answers, tells denied ones, and places every result in call order before the new messages', async () => {
    const provider = scripted(() => text('thanks'));
    const ask = tool('ask', async () => 'asked', false);
    const history: TurnInput['history'] = [
      { role: 'user', content: 'start' },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', toolCallId: 'x', name: 'ask', input: {} },
          { type: 'tool_use', toolCallId: 'y', name: 'client_tool', input: {} },
          { type: 'tool_use', toolCallId: 'z', name: 'ask', input: {} },
        ],
      },
    ];
    const { events } = await run(provider, [ask], {
      input: {
        history,
        answers: [
          { call: { toolCallId: 'x', name: 'ask', input: {}, awaiting: 'permission' }, answer: { kind: 'permission', granted: false, reason: 'no' } },
          { call: { toolCallId: 'y', name: 'client_tool', input: {}, awaiting: 'client' }, answer: { kind: 'result', content: 'client says hi', isError: false } },
          { call: { toolCallId: 'z', name: 'ask', input: {}, awaiting: 'permission' }, answer: { kind: 'permission', granted: true } },
        ],
        newMessages: [{ role: 'user', content: 'and then?' }],
      },
    });
    expect(results(events)).toEqual([
      { id: 'x', content: 'Tool call denied: no', state: 'denied' },
      { id: 'z', content: 'asked', state: 'success' },
    ]);
    expect(provider.requests[0]!.messages.map((m) => (m.role === 'tool' ? `${m.toolCallId}:${m.content}` : m.role))).toEqual([
      'user',
      'assistant',
      'x:Tool call denied: no',
      'y:client says hi',
      'z:asked',
      'user',
    ]);
  });
});

describe('tool call ids', () => {
  it('replaces an id the server reuses, so that every result pairs with its own call', async () => {
    const provider = scripted((_r, call) => (call <= 2 ? calls(['call_0', 'echo', {}], ['call_0', 'echo', {}]) : text('done')));
    const echo = tool('echo', async () => 'echoed');
    const { events } = await run(provider, [echo]);
    const ids = events.flatMap((e) => (e.type === 'tool-call' ? [e.toolCallId] : []));
    expect(ids).toHaveLength(4);
    expect(new Set(ids).size).toBe(4);
    expect(ids[0]).toBe('call_0');
    const sent = provider.requests[2]!.messages;
    expect(sent.filter((m) => m.role === 'tool').map((m) => (m as { toolCallId: string }).toolCallId)).toEqual(ids);
  });

  it('replaces an id a call of the loaded history has, after the turn has made calls of its own', async () => {
    const history: TurnInput['history'] = [
      { role: 'user', content: 'before' },
      { role: 'assistant', content: [{ type: 'tool_use', toolCallId: 'call_old', name: 'echo', input: {} }] },
      { role: 'tool', toolCallId: 'call_old', content: 'echoed' },
      { role: 'assistant', content: 'done before' },
    ];
    const provider = scripted((_r, call) => (call === 1 ? calls(['call_new', 'echo', {}]) : call === 2 ? calls(['call_old', 'echo', {}]) : text('done')));
    const { events } = await run(provider, [tool('echo', async () => 'echoed')], { input: { history } });
    const ids = events.flatMap((e) => (e.type === 'tool-call' ? [e.toolCallId] : []));
    expect(ids).toHaveLength(2);
    expect(ids[0]).toBe('call_new');
    expect(ids[1]).not.toBe('call_old');
  });
});

describe('retries of a failed model call', () => {
  const fail = (retryable: boolean): ModelStreamPart[] => [{ type: 'error', code: 'upstream_error', message: 'HTTP 503', retryable }];

  it('sends the call again after a retryable fault that came before any output', async () => {
    const provider = scripted((_r, call) => (call <= 2 ? fail(true) : text('finally')));
    const { outcome, events } = await run(provider, []);
    expect(outcome.stopReason).toBe('end_turn');
    expect(provider.requests).toHaveLength(3);
    expect(events.filter((e) => e.type === 'model-call-retry').map((e) => (e as { attempt: number }).attempt)).toEqual([1, 2]);
  });

  it('gives up after maxRetries with the last error', async () => {
    const provider = scripted(() => fail(true));
    const { outcome } = await run(provider, []);
    expect(outcome).toMatchObject({ stopReason: 'error', error: { code: 'upstream_error' } });
    expect(provider.requests).toHaveLength(3);
  });

  it('never retries a fault that is not retryable, or one after output reached the client', async () => {
    const permanent = scripted(() => fail(false));
    expect((await run(permanent, [])).outcome.stopReason).toBe('error');
    expect(permanent.requests).toHaveLength(1);
    const late = scripted(() => [{ type: 'text-delta', delta: 'Hel' }, ...fail(true)]);
    expect((await run(late, [])).outcome.stopReason).toBe('error');
    expect(late.requests).toHaveLength(1);
  });

  describe('sends each answer call the prompt as it was last compacted', () => {
    // A 1,000-token window: 750 for the prompt, compacted past 600. Twenty messages of about 100 tokens each.
    const context = { windowOverride: { byModel: { 'test:model': 1000 } } };
    const history = Array.from({ length: 20 }, (_, index) => ({ role: index % 2 === 0 ? ('user' as const) : ('assistant' as const), content: `${index} ${'word '.repeat(80)}` }));
    const answers = (provider: { requests: ModelRequest[] }) => provider.requests.filter((request) => request.purpose === 'answer');
    const compactions = (events: AgentEvent[]) => events.filter((event) => event.type === 'context-compacted');

    it('past the budget: the summary and the messages it left, not the whole history', async () => {
      const provider = scripted((request) => text(request.purpose === 'summary' ? 'the summary' : 'answer'));
      const { outcome, events } = await run(provider, [], { context, input: { history } });
      expect(outcome.stopReason).toBe('end_turn');
      const [compacted] = compactions(events);
      const [answer] = answers(provider);
      expect(compacted).toBeDefined();
      expect(answer!.messages[0]!.content).toContain('the summary');
      expect(answer!.messages).toHaveLength(1 + history.length + 1 - compacted!.messagesSummarized);
    });

    it('after an overflow answer: the prompt compacted harder, smaller than the one that overflowed', async () => {
      const provider = scripted((request) => {
        if (request.purpose === 'summary') return text('the summary');
        return answers(provider).length === 1 ? [{ type: 'error', code: 'context_overflow', message: 'too long' }] : text('answer');
      });
      const { outcome, events } = await run(provider, [], { context, input: { history } });
      expect(outcome.stopReason).toBe('end_turn');
      const [first, second] = answers(provider);
      expect(compactions(events).map((event) => event.reason)).toEqual(['threshold', 'overflow']);
      expect(second!.messages.length).toBeLessThan(first!.messages.length);
      expect(second!.messages[0]!.content).toContain('the summary');
    });
  });

  it('waits with exponential, jittered backoff, or as Retry-After says within a bound', () => {
    const policy = { ...DEFAULT_RETRY_POLICY, maxRetries: 3, random: () => 0.5 };
    expect([0, 1, 2].map((attempt) => retryDelay(policy, attempt, undefined))).toEqual([250, 500, 1000]);
    expect(retryDelay({ ...policy, random: () => 0 }, 1, undefined)).toBe(250);
    expect(retryDelay({ ...policy, random: () => 0.999 }, 1, undefined)).toBe(750);
    expect(retryDelay(policy, 10, undefined)).toBeUndefined();
    expect(retryDelay({ ...policy, maxRetries: 20 }, 10, undefined)).toBe(8000);
    expect(retryDelay(policy, 0, 3000)).toBe(3000);
    expect(retryDelay(policy, 0, 60_000)).toBeUndefined();
  });
});
