#!/usr/bin/env node
// `npm run profile -- <workload>`: a CPU profile of the service in workerd, taken through
// `wrangler dev`'s inspector (V8's sampling profiler, the one DevTools uses), under one workload
// against the benchmarks' stand-in upstream:
//   long    300 short streamed turns on one session (its history grows as in the benchmark)
//   fresh   150 short streamed turns, each on a new session
//   stream  3 answers of 20,000 deltas on new sessions
//   tool    300 short streamed turns on one session, each a tool's step first (`current_time`)
// Prints the functions that took the most time (their own, then with what they called) and writes
// the whole profile to bench/profiles/<workload>.cpuprofile, which Chrome DevTools opens. Loopback
// only; bounded in time. The profiler's own sampling slows the isolate: read shares, not durations.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { startDevServer } from '../scripts/dev-server.mjs';
import { serviceVars, startBenchUpstream } from './upstream.mjs';

const WORKLOADS = {
  long: { turns: 300, session: () => 'profile-long', model: 'openai:deltas-5' },
  fresh: { turns: 150, session: (turn) => `profile-fresh-${turn}`, model: 'openai:deltas-5' },
  stream: { turns: 3, session: (turn) => `profile-stream-${turn}`, model: 'openai:deltas-20000' },
  tool: { turns: 300, session: () => 'profile-tool', model: 'openai:tool-then-5' },
};
const SAMPLING_INTERVAL_US = 200;
const TIME_LIMIT_MS = 180_000;
const TOP = 30;

const name = process.argv[2] ?? 'long';
const workload = WORKLOADS[name];
if (!workload) {
  console.error(`npm run profile -- <${Object.keys(WORKLOADS).join('|')}>`);
  process.exit(2);
}
const guard = setTimeout(() => {
  console.error(`profile: stopped at its ${TIME_LIMIT_MS / 1000} s bound`);
  process.exit(3);
}, TIME_LIMIT_MS);

const upstream = await startBenchUpstream();
const inspectorPort = 9300 + Math.floor(Math.random() * 600);
const ours = await startDevServer({
  // Unminified, so that the profile names our functions.
  extraArgs: ['--persist-to', mkdtempSync(join(tmpdir(), 'profile-state-')), '--inspector-port', String(inspectorPort), '--no-minify'],
  vars: serviceVars(upstream.url, 20_000),
});

/** The inspector's DevTools protocol, one request at a time. */
async function connectInspector() {
  const [target] = await (await fetch(`http://127.0.0.1:${inspectorPort}/json`)).json();
  const socket = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  let nextId = 0;
  const waiting = new Map();
  socket.on('message', (data) => {
    const message = JSON.parse(String(data));
    waiting.get(message.id)?.(message);
    waiting.delete(message.id);
  });
  return {
    send: (method, params = {}) =>
      new Promise((resolve) => {
        const id = ++nextId;
        waiting.set(id, resolve);
        socket.send(JSON.stringify({ id, method, params }));
      }),
    close: () => socket.close(),
  };
}

async function turn(sessionId, model) {
  const response = await fetch(`${ours.base}/sessions/${sessionId}/turns`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ stream: 'delta', model, messages: [{ role: 'user', content: 'hello' }] }),
  });
  if (!response.ok) throw new Error(`turn: ${response.status} ${await response.text()}`);
  await response.text();
}

/**
 * Time per function: its own samples, and those of everything it called (counted once per stack).
 * A sample counts the time since the one before it, at most twice the sampling interval: after the
 * isolate waited for I/O, the first frame that runs would otherwise be charged the whole wait (a
 * route's handler, resumed after its RPC, showed a millisecond a turn of "own time" from a few
 * samples).
 */
function summarize(profile) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const label = (node) => `${node.callFrame.functionName || '(anonymous)'}${node.callFrame.lineNumber >= 0 ? `:${node.callFrame.lineNumber + 1}` : ''}`;
  const own = new Map();
  const total = new Map();
  let all = 0;
  profile.samples.forEach((id, index) => {
    const us = Math.min(profile.timeDeltas[index] ?? 0, 2 * SAMPLING_INTERVAL_US);
    all += us;
    own.set(label(nodes.get(id)), (own.get(label(nodes.get(id))) ?? 0) + us);
    const seen = new Set();
    for (let at = id; at !== undefined; at = parents.get(at)) {
      const key = label(nodes.get(at));
      if (seen.has(key)) continue;
      seen.add(key);
      total.set(key, (total.get(key) ?? 0) + us);
    }
  });
  const top = (map) =>
    [...map]
      .filter(([key]) => key !== '(root)')
      .sort((a, b) => b[1] - a[1])
      .slice(0, TOP)
      .map(([key, us]) => `${(us / 1000).toFixed(0).padStart(7)} ms ${((100 * us) / all).toFixed(1).padStart(5)}%  ${key}`);
  return { all, own: top(own), total: top(total) };
}

const inspector = await connectInspector();
try {
  for (let index = 0; index < 20; index++) await turn(`profile-warm-${index % 2}`, 'openai:deltas-5');
  await inspector.send('Profiler.enable');
  await inspector.send('Profiler.setSamplingInterval', { interval: SAMPLING_INTERVAL_US });
  await inspector.send('Profiler.start');
  const started = performance.now();
  for (let index = 0; index < workload.turns; index++) await turn(workload.session(index), workload.model);
  const wallMs = performance.now() - started;
  const { result } = await inspector.send('Profiler.stop');
  mkdirSync('bench/profiles', { recursive: true });
  const file = `bench/profiles/${name}.cpuprofile`;
  writeFileSync(file, JSON.stringify(result.profile));
  const summary = summarize(result.profile);
  console.log(`profile "${name}": ${workload.turns} turns in ${(wallMs / 1000).toFixed(1)} s; ${(summary.all / 1000).toFixed(0)} ms sampled; written to ${file}`);
  console.log('\nown time (bundle line numbers: .wrangler/tmp/dev-*/index.js while it runs)');
  console.log(summary.own.join('\n'));
  console.log('\nwith what it called');
  console.log(summary.total.join('\n'));
} finally {
  clearTimeout(guard);
  inspector.close();
  ours.stop();
  await upstream.close();
}
process.exit(0);
