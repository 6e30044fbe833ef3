/**
 * CPU per event of the platform-free core, in Node (`process.cpuUsage`): the agent loop alone, and
 * the loop with each encoder (and its framing) listening. A scripted provider streams
 * 20,000 text deltas, in batches as a network's reads bring them; every figure is the median of
 * repeated runs. Prints one `BENCH {json}` line.
 */
import type { AgentEvent } from '../src/agent/events';
import { DEFAULT_RETRY_POLICY } from '../src/agent/retry-policy';
import { runTurn } from '../src/agent/run-turn';
import { SSE_FRAMING } from '../src/transport/sse-stream';
import { createAguiEncoder } from '../src/protocol/agui-encoder';
import { typedSse } from '../src/protocol/encoder';
import { createHarnessEncoder } from '../src/protocol/harness-encoder';
import { harnessSse } from '../src/protocol/harness-sse';
import { harnessFraming } from '../src/transport/harness-framing';
import { createPiEncoder } from '../src/protocol/pi-encoder';
import { piSse } from '../src/protocol/pi-sse';
import { createSocketEncoder } from '../src/protocol/socket-encoder';
import { ALL_VISIBLE } from '../src/protocol/socket-frames';
import { createTurnsJsonEncoder } from '../src/protocol/turns-json-encoder';
import { createTurnsSseEncoder } from '../src/protocol/turns-sse-encoder';
import type { ModelProvider, ModelStreamPart } from '../src/providers/types';
import { createToolRegistry } from '../src/tools/registry';

const DELTAS = 20_000;
const RUNS = 7;

const provider: ModelProvider = {
  // In batches of 400 deltas, about what one 64 KiB read of a real answer holds.
  async *stream() {
    for (let start = 0; start < DELTAS; start += 400) {
      yield Array.from({ length: Math.min(400, DELTAS - start) }, (_, offset): ModelStreamPart => ({ type: 'text-delta', delta: `word${(start + offset) % 100} ` }));
    }
    yield [
      { type: 'usage', usage: { inputTokens: 10, outputTokens: DELTAS } },
      { type: 'finish', reason: 'end_turn' },
    ];
  },
};

async function cpuPerEvent(listen: (event: AgentEvent) => void): Promise<number> {
  let events = 0;
  const start = process.cpuUsage();
  await runTurn(
    { turnId: 'turn_bench', history: [], context: { calibration: 1 }, answers: [], newMessages: [{ role: 'user', content: 'go' }], clientTools: [] },
    {
      model: { id: 'bench:model', model: 'model', provider },
      tools: createToolRegistry([]),
      toolContext: { now: () => new Date(), notes: { save: () => ({ id: 1, text: '', savedAt: '' }), list: () => [] } },
      emit: (event) => {
        events++;
        listen(event);
      },
      signal: new AbortController().signal,
      systemPrompt: 'bench',
      maxIterations: 1,
      toolTimeoutMs: 1000,
      retry: { ...DEFAULT_RETRY_POLICY, maxRetries: 0 },
      context: { windowOverride: { all: 10_000_000, byModel: {} }, threshold: 0.8, toolResultMaxChars: 20_000 },
      newId: (prefix) => `${prefix}_x`,
      now: Date.now,
    },
  );
  const used = process.cpuUsage(start);
  return (used.user + used.system) / events;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const systems: Record<string, () => (event: AgentEvent) => void> = {
  'loop alone': () => () => {},
  'loop + delta SSE encoder + framing': () => {
    const encoder = createTurnsSseEncoder('delta');
    return (event) => {
      for (const item of encoder.encode(event)) SSE_FRAMING.item(item, '1');
    };
  },
  'loop + message SSE encoder + framing': () => {
    const encoder = createTurnsSseEncoder('message');
    return (event) => {
      for (const item of encoder.encode(event)) SSE_FRAMING.item(item, '1');
    };
  },
  'loop + socket encoder (docs/chat-socket.md) + JSON framing': () => {
    const encoder = createSocketEncoder({ conversationId: 'bench', requestId: null, reasoning: true, visibility: () => ALL_VISIBLE });
    return (event) => {
      for (const frame of encoder.encode(event)) JSON.stringify(frame);
    };
  },
  'loop + pi encoder (docs/pi-and-agui.md) + SSE framing': () => {
    const encoder = piSse(createPiEncoder());
    return (event) => {
      for (const item of encoder.encode(event)) SSE_FRAMING.item(item, '1');
    };
  },
  'loop + AG-UI encoder + SSE framing': () => {
    const encoder = typedSse(createAguiEncoder({ threadId: 'bench', runId: 'bench' }));
    return (event) => {
      for (const item of encoder.encode(event)) SSE_FRAMING.item(item, '1');
    };
  },
  'loop + Harness encoder (docs/harness.md) + SSE framing': () => {
    const encoder = harnessSse(createHarnessEncoder({ sessionId: 'bench', now: Date.now }));
    const framing = harnessFraming('sse');
    return (event) => {
      for (const item of encoder.encode(event)) framing.item(item, '1');
    };
  },
  'loop + JSON encoder': () => {
    const encoder = createTurnsJsonEncoder();
    return (event) => void encoder.encode(event);
  },
};

for (const make of Object.values(systems)) await cpuPerEvent(make()); // warm up the JIT for all alike
const results: Record<string, number[]> = Object.fromEntries(Object.keys(systems).map((name) => [name, []]));
for (let run = 0; run < RUNS; run++) {
  // Alternating systems within each run, so that drift of the machine falls on all alike.
  for (const [name, make] of Object.entries(systems)) results[name]!.push(await cpuPerEvent(make()));
}
const rows = Object.entries(results).map(([name, values]) => ({ name, microsecondsPerEvent: Math.round(median(values) * 100) / 100 }));
console.log(`BENCH ${JSON.stringify({ name: 'cpu-per-event', deltas: DELTAS, runs: RUNS, node: process.version, rows })}`);
