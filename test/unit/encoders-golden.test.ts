/**
 * Every wire format from the same golden event scripts: a plain answer, tools, a suspension, a
 * cancel, an error, a compaction and a sub-agent, each the event stream of a real turn of the loop
 * (the demo model, the built-in tools, fixed ids and clock). Each encoder must end
 * each script with its own terminal item, once, and give what the snapshot holds: a change to any
 * encoder, or to the loop's events, shows here as a diff to read.
 */
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/agent/events';
import { DEFAULT_RETRY_POLICY } from '../../src/agent/retry-policy';
import { runTurn, type TurnDeps } from '../../src/agent/run-turn';
import type { HistoryMessage } from '../../src/api/content';
import { createA2aEncoder } from '../../src/protocol/a2a-encoder';
import { v03StreamItem } from '../../src/protocol/a2a-v03';
import { createAguiEncoder } from '../../src/protocol/agui-encoder';
import type { WireEncoder } from '../../src/protocol/encoder';
import { createHarnessEncoder } from '../../src/protocol/harness-encoder';
import { harnessSse } from '../../src/protocol/harness-sse';
import { createMcpChatEncoder } from '../../src/protocol/mcp-chat-encoder';
import { createPiEncoder } from '../../src/protocol/pi-encoder';
import { createPiProxyEncoder } from '../../src/protocol/pi-proxy-encoder';
import { piSse } from '../../src/protocol/pi-sse';
import { createSocketEncoder } from '../../src/protocol/socket-encoder';
import { createTurnsJsonEncoder } from '../../src/protocol/turns-json-encoder';
import { createTurnsSseEncoder } from '../../src/protocol/turns-sse-encoder';
import { ALL_VISIBLE } from '../../src/protocol/socket-frames';
import { createDemoProvider } from '../../src/providers/demo/demo-provider';
import { defaultTools } from '../../src/tools/default-tools';
import type { SubagentRunner } from '../../src/tools/types';

type Scenario = { prompt: string; history?: HistoryMessage[]; cancel?: boolean; window?: number };

/** A long history of short exchanges, for a window that cannot hold it: the turn compacts first. */
const longHistory: HistoryMessage[] = Array.from({ length: 40 }, (_, index) =>
  index % 2 === 0 ? { role: 'user', content: `question ${index}: ${'x'.repeat(120)}` } : { role: 'assistant', content: `answer ${index}: ${'y'.repeat(120)}` },
);

const SCENARIOS: Record<string, Scenario> = {
  'plain answer': { prompt: 'hello' },
  tools: { prompt: 'calculate 6*7; what time is it in UTC' },
  suspension: { prompt: 'remember buy milk; call get_weather {"city":"Lima"}' },
  cancel: { prompt: 'hello', cancel: true },
  error: { prompt: 'demo:error' },
  compaction: { prompt: 'hello again', history: longHistory, window: 1500 },
  'sub-agent': { prompt: 'call agent_spawn {"agentId":"helper","task":"calculate 2*3","expose_to_user":true}' },
};

/** A sub-agent that answers with the events of a plain turn, as the session's runner reports them. */
const subagents: SubagentRunner = async (task, report) => {
  report({ kind: 'exposed', subagentId: 'sub_1', agentId: task.agentId, sessionId: 'child', label: task.agentId });
  for (const event of await script({ prompt: task.task })) report({ kind: 'event', source: `main/${task.agentId}`, sessionId: 'child', event });
  return { subagentId: 'sub_1', sessionId: 'child', text: '6', stopReason: 'end_turn' };
};

/** The events of one real turn of the loop, with fixed ids and clock. */
async function script({ prompt, history = [], cancel, window }: Scenario): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  const controller = new AbortController();
  if (cancel) controller.abort();
  let ids = 0;
  const deps: TurnDeps = {
    model: { id: 'demo:demo', model: 'demo', provider: createDemoProvider() },
    tools: defaultTools,
    toolContext: { now: () => new Date(Date.UTC(2026, 0, 1)), notes: { save: (text) => ({ id: 1, text, savedAt: '2026-01-01T00:00:00.000Z' }), list: () => [] }, subagents },
    emit: (event) => events.push(event),
    signal: controller.signal,
    systemPrompt: 'You are a helpful assistant.',
    maxIterations: 3,
    toolTimeoutMs: 5_000,
    retry: { ...DEFAULT_RETRY_POLICY, maxRetries: 0 },
    context: { windowOverride: window ? { all: window, byModel: {} } : { byModel: {} }, threshold: 0.5, toolResultMaxChars: 20_000 },
    newId: (prefix) => `${prefix}_${String(++ids).padStart(24, '0')}`,
    now: () => Date.UTC(2026, 0, 1),
  };
  const turn = { turnId: 'turn_000000000000000000000001', history, context: { calibration: 1 }, answers: [], newMessages: [{ role: 'user' as const, content: prompt }], clientTools: [{ name: 'get_weather' }] };
  await runTurn(turn, deps);
  return events;
}

/** The encoders, each with the item that must end every turn (`perCall`: every model call). */
const ENCODERS: Record<string, { make: () => WireEncoder<unknown>; last: (item: any) => boolean; perCall?: true }> = {
  'turns SSE': { make: () => createTurnsSseEncoder('delta'), last: (item) => item.event === 'turn_stop' },
  'turns JSON': { make: () => createTurnsJsonEncoder(), last: (item) => typeof item.stopReason === 'string' },
  // A sub-agent's run ends inside the caller's, told with its source.
  Harness: { make: () => createHarnessEncoder({ sessionId: 's1', now: () => Date.UTC(2026, 0, 1) }), last: (item) => item.type === 'AGENT_END' && !item.source },
  'chat socket': {
    make: () => createSocketEncoder({ conversationId: 's1', requestId: 'r1', reasoning: true, visibility: () => ALL_VISIBLE }),
    last: (item) => item.type === 'completion_done',
  },
  pi: { make: () => createPiEncoder(), last: (item) => item.type === 'agent_end' },
  'AG-UI': { make: () => createAguiEncoder({ threadId: 's1', runId: 'run1' }), last: (item) => item.type === 'RUN_FINISHED' || item.type === 'RUN_ERROR' },
  // One model call's stream, for pi's own loop: each call ends with `done` or `error`.
  "pi's proxy": { make: () => createPiProxyEncoder(), last: (item) => item.type === 'done' || item.type === 'error', perCall: true },
  // MCP's chat tool: progress notifications, then the tool's result.
  'MCP chat': { make: () => createMcpChatEncoder('s1'), last: (item) => item.kind === 'result' },
  // A2A's task stream: the task, its artifact's chunks, its last status.
  A2A: { make: () => createA2aEncoder({ taskId: 't1:s1', contextId: 's1' }, () => Date.UTC(2026, 0, 1)), last: (item) => 'statusUpdate' in item },
  // The same in A2A v0.3's words: its last status update is the one marked final.
  'A2A v0.3': {
    make: () => {
      const encoder = createA2aEncoder({ taskId: 't1:s1', contextId: 's1' }, () => Date.UTC(2026, 0, 1));
      return { encode: (event) => encoder.encode(event).map(v03StreamItem) };
    },
    last: (item) => item.kind === 'status-update' && item.final,
  },
};

describe('every encoder, from the same golden scripts', async () => {
  const scripts = Object.fromEntries(await Promise.all(Object.entries(SCENARIOS).map(async ([name, scenario]) => [name, await script(scenario)] as const)));

  it('has scripts that show what they are named for', () => {
    const types = (name: string) => scripts[name]!.map((event) => event.type);
    expect(types('tools')).toContain('tool-execution-end');
    expect(types('suspension')).toContain('turn-suspend');
    expect(scripts.cancel!.at(-1)).toMatchObject({ type: 'turn-stop', error: { code: 'cancelled' } });
    expect(scripts.error!.at(-1)).toMatchObject({ type: 'turn-stop', stopReason: 'error' });
    expect(types('compaction')).toContain('context-compacted');
    expect(types('sub-agent')).toEqual(expect.arrayContaining(['subagent-exposed', 'subagent-event']));
    for (const events of Object.values(scripts)) expect(events.filter((event) => event.type === 'turn-stop')).toHaveLength(1);
  });

  for (const [encoderName, { make, last, perCall }] of Object.entries(ENCODERS)) {
    it.each(Object.keys(SCENARIOS))(`${encoderName}: %s`, (scenario) => {
      const encoder = make();
      const events = scripts[scenario]!;
      const items = events.flatMap((event) => encoder.encode(event));
      const ends = perCall ? events.filter((event) => event.type === 'model-call-end').length : 1;
      expect(items.filter(last)).toHaveLength(ends);
      if (ends > 0) expect(last(items.at(-1))).toBe(true);
      // One line per item: the snapshot reads as the wire does.
      expect(items.map((item) => JSON.stringify(item)).join('\n')).toMatchSnapshot();
    });
  }

  // pi over SSE splices each update's JSON from the header's, made once (src/protocol/pi-sse.ts).
  it.each(Object.keys(SCENARIOS))('pi over SSE: every spliced JSON is what JSON.stringify gives: %s', (scenario) => {
    const encoder = piSse(createPiEncoder());
    const items = scripts[scenario]!.flatMap((event) => encoder.encode(event));
    const spliced = items.filter((item) => item.json !== undefined);
    if (scenario !== 'cancel' && scenario !== 'error') expect(spliced.length).toBeGreaterThan(0);
    for (const item of items) {
      expect(item.event).toBe((item.data as { type: string }).type);
      if (item.json !== undefined) expect(item.json).toBe(JSON.stringify(item.data));
    }
  });

  // The Harness door writes each text and thinking delta's JSON itself (src/protocol/harness-sse.ts).
  it.each(Object.keys(SCENARIOS))('Harness over SSE: every spliced JSON is what JSON.stringify gives: %s', (scenario) => {
    const encoder = harnessSse(createHarnessEncoder({ sessionId: 's1', now: () => Date.UTC(2026, 0, 1) }));
    const items = scripts[scenario]!.flatMap((event) => encoder.encode(event));
    const deltas = items.filter((item) => /^(TEXT|THINKING)_BLOCK_DELTA$/.test(item.event));
    if (scenario !== 'cancel' && scenario !== 'error') expect(deltas.length).toBeGreaterThan(0);
    for (const item of items) {
      expect(item.event).toBe((item.data as { type: string }).type);
      if (item.json !== undefined) expect(item.json).toBe(JSON.stringify(item.data));
    }
    // Every delta of the run's own is spliced; a sub-agent's (with its `source`) goes through JSON.stringify.
    for (const item of deltas) expect(item.json !== undefined).toBe((item.data as { source?: string }).source === undefined);
  });

  it('Harness over SSE: deltas of any text, across blocks and turns, spliced as JSON.stringify gives them', () => {
    const encoder = harnessSse(createHarnessEncoder({ sessionId: 's1', now: () => Date.UTC(2026, 0, 1, 0, 0, 0, 7) }));
    const texts = ['"quoted" and \\ back', 'line\nbreak\ttab', '</script> é 😀', '\u2028\u2029\u0000', ''];
    const items = [1, 2].flatMap((turn) => [
      ...encoder.encode({ type: 'turn-start', turnId: `turn_${turn}abc`, model: 'demo:demo', at: 0 }),
      ...[`blk_"${turn}`, `blk_${turn}`].flatMap((blockId) => [
        ...encoder.encode({ type: 'thinking-start', blockId, callId: 'c', contentIndex: 0 }),
        ...texts.flatMap((delta) => encoder.encode({ type: 'thinking-delta', blockId, delta })),
        ...encoder.encode({ type: 'text-start', blockId, callId: 'c', contentIndex: 1 }),
        ...texts.flatMap((delta) => encoder.encode({ type: 'text-delta', blockId, delta })),
      ]),
    ]);
    const spliced = items.filter((item) => item.json !== undefined);
    expect(spliced).toHaveLength(2 * 2 * 2 * texts.length);
    for (const item of spliced) expect(JSON.parse(item.json!)).toEqual(item.data);
    for (const item of spliced) expect(item.json).toBe(JSON.stringify(item.data));
  });
});
