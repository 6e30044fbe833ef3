// End-to-end benchmarks over real sockets: each system under `wrangler dev` (workerd) on loopback,
// against one stand-in upstream (bench/upstream.mjs), measured side by side, systems alternating.
//   limit  a bare pass-through Worker that forwards the upstream stream unparsed (bench/systems/limit.js)
//          and the same held by a Durable Object (bench/systems/limit-do.js): the floor of a design
//          that runs each session in one; and an object that reads the stream in JavaScript, one SSE
//          event out per delta (bench/systems/limit-do-read.js): the floor of one that reads the answer,
//          and, storing the request first, of one that also keeps its turns
//   least  the least a turn of this service's turns API does (bench/systems/minimal-turn.js): the floor of
//          any design that keeps its contract, on a long-lived session and on a new one; and the same
//          served as ours is (bench/systems/minimal-turn-assets.toml: the playground's static assets in
//          front of the Worker), offering the default agent's tools as the contract's agent does
//   ours   this service, `stream: "delta"`, on a fresh session per turn and on one long-lived session
//   peer   Cloudflare's AIChatAgent with the AI SDK's streamText (bench/systems/peer/index.ts), over its
//          WebSocket chat protocol: a fresh chat's socket is opened on the clock, a long-lived one's before
// Prints one `BENCH {json}` line per figure. Bounded: stops itself after TIME_LIMIT_MS.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { startDevServer } from '../scripts/dev-server.mjs';
import { groupRuntimes, measure, measurePipe, measureReader, measureTurn, median, quantile, round, runtimesCpuNs, shuffled } from './measure.mjs';
import { serviceVars, startBenchUpstream } from './upstream.mjs';

/**
 * The peer's packages (the Agents SDK, the AI SDK and what they bring, which want a newer Node than
 * the project's) live in their own folder with their own lock file, installed the first time a
 * benchmark needs them: the project's own install carries none of them.
 */
function installPeer() {
  const folder = join(import.meta.dirname, 'systems', 'peer');
  if (existsSync(join(folder, 'node_modules', 'agents'))) return;
  console.log('bench: installing the peer (bench/systems/peer) once');
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel', 'error'], { cwd: folder, stdio: 'inherit' });
}

const TIME_LIMIT_MS = 330_000;
const TTFT_TURNS = 200;
const THROUGHPUT_DELTAS = 20_000;
const THROUGHPUT_RUNS = 7;
const CONCURRENT_SESSIONS = 100;
const TURNS_EACH = 5;

const guard = setTimeout(() => {
  console.error(`bench e2e: stopped at its ${TIME_LIMIT_MS / 1000} s bound`);
  process.exit(3);
}, TIME_LIMIT_MS);

const upstream = await startBenchUpstream();
// A fresh local state each run: sessions of earlier runs would make "long-lived" longer every time.
const state = mkdtempSync(join(tmpdir(), 'bench-state-'));
// One after the other, each without the inspector (scripts/dev-worker.mjs: its relay cost the machine
// more than any system did itself, bench/PROFILE.md, "The dev server's inspector").
const limit = await startDevServer({ inspector: false, config: 'bench/systems/limit.toml', vars: { UPSTREAM_URL: upstream.url } });
const limitDo = await startDevServer({
  inspector: false,
  config: 'bench/systems/limit-do.toml',
  vars: { UPSTREAM_URL: upstream.url },
  extraArgs: ['--persist-to', mkdtempSync(join(tmpdir(), 'bench-pipe-state-'))],
});
const limitDoRead = await startDevServer({
  inspector: false,
  config: 'bench/systems/limit-do-read.toml',
  vars: { UPSTREAM_URL: upstream.url },
  extraArgs: ['--persist-to', mkdtempSync(join(tmpdir(), 'bench-read-state-'))],
});
const least = await startDevServer({
  inspector: false,
  config: 'bench/systems/minimal-turn.toml',
  vars: { UPSTREAM_URL: upstream.url },
  extraArgs: ['--persist-to', mkdtempSync(join(tmpdir(), 'bench-least-state-'))],
});
const leastAsOurs = await startDevServer({
  inspector: false,
  config: 'bench/systems/minimal-turn-assets.toml',
  vars: { UPSTREAM_URL: upstream.url },
  extraArgs: ['--persist-to', mkdtempSync(join(tmpdir(), 'bench-least-assets-state-'))],
});
const ours = await startDevServer({
  inspector: false,
  extraArgs: ['--persist-to', state],
  vars: serviceVars(upstream.url, THROUGHPUT_DELTAS),
});
installPeer();
const peer = await startDevServer({
  inspector: false,
  config: 'bench/systems/peer.toml',
  vars: { UPSTREAM_URL: upstream.url },
  extraArgs: ['--persist-to', mkdtempSync(join(tmpdir(), 'bench-peer-state-'))],
});
const stopAll = () => {
  limit.stop();
  limitDo.stop();
  limitDoRead.stop();
  least.stop();
  leastAsOurs.stop();
  ours.stop();
  peer.stop();
  void upstream.close();
};

/** An open socket to one AIChatAgent instance (one chat). */
async function peerChat(name) {
  const socket = new WebSocket(`${peer.base.replace(/^http/, 'ws')}/agents/chat/${name}`);
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  return socket;
}

/** One chat request over the agent's socket: the same three figures as `measure`. */
function measurePeer(socket, model, turn) {
  return new Promise((resolve, reject) => {
    const id = `req-${turn}-${Math.random().toString(36).slice(2)}`;
    const message = { id: `msg-${id}`, role: 'user', parts: [{ type: 'text', text: `hello ${turn}` }] };
    let first;
    let count = 0;
    const started = performance.now();
    const onMessage = (data) => {
      const frame = JSON.parse(String(data));
      if (frame.type !== 'cf_agent_use_chat_response' || frame.id !== id) return;
      if (frame.error) return reject(new Error(`peer: ${frame.body}`));
      if (frame.body && frame.body.includes('"type":"text-delta"')) {
        count++;
        first ??= performance.now();
      }
      if (frame.done) {
        socket.off('message', onMessage);
        const last = performance.now();
        resolve({ ttft: (first ?? last) - started, totalMs: last - started, count });
      }
    };
    socket.on('message', onMessage);
    socket.send(JSON.stringify({ type: 'cf_agent_use_chat_request', id, init: { method: 'POST', body: JSON.stringify({ messages: [message], trigger: 'submit-message', model }) } }));
  });
}

const peerLongLived = await peerChat('bench-long-lived');

/** A system's run, marked with the dev server it runs in (whose runtimes' CPU counts for it). */
const on = (server, run) => Object.assign(run, { server });

/** A turn of the turns API on `server` (ours, or the least a turn does), on the session `session(turn)` names. */
const turnOn = (server, session, query = '') => on(server, (model, turn) => measureTurn(`${server.base}/sessions/${session(turn)}/turns${query}`, model, turn));

const systems = {
  limit: on(limit, (model, turn) => measurePipe(`${limit.base}/`, model, turn)),
  'limit through a DO': on(limitDo, (model, turn) => measurePipe(`${limitDo.base}/`, model, turn)),
  'limit through a new DO': on(limitDo, (model, turn) => measurePipe(`${limitDo.base}/new`, model, turn)),
  'limit through a DO that reads the stream': on(limitDoRead, (model, turn) => measureReader(`${limitDoRead.base}/`, model, turn)),
  'limit through a new DO that reads the stream': on(limitDoRead, (model, turn) => measureReader(`${limitDoRead.base}/new`, model, turn)),
  'limit through a DO that stores, then reads': on(limitDoRead, (model, turn) => measureReader(`${limitDoRead.base}/store`, model, turn)),
  'limit through a new DO that stores, then reads': on(limitDoRead, (model, turn) => measureReader(`${limitDoRead.base}/store/new`, model, turn)),
  'the least a turn does (new session)': turnOn(least, (turn) => `bench-fresh-${Date.now()}-${turn}`),
  'the least a turn does (long-lived session)': turnOn(least, () => 'bench-long-lived'),
  'the least a turn does, served as ours is (new session)': turnOn(leastAsOurs, (turn) => `bench-fresh-${Date.now()}-${turn}`, '?tools'),
  'the least a turn does, served as ours is (long-lived session)': turnOn(leastAsOurs, () => 'bench-long-lived', '?tools'),
  'ours (fresh session)': turnOn(ours, (turn) => `bench-fresh-${Date.now()}-${turn}`),
  'ours (long-lived session)': turnOn(ours, () => 'bench-long-lived'),
  // Not a target's: a tool's step first (two model calls and `current_time`), so that every run
  // measures the path of a later step's request (docs/decisions.md, 44), which no other row takes.
  'ours (long-lived session, a tool\'s step first)': on(ours, (model, turn) => measureTurn(`${ours.base}/sessions/bench-tool-step/turns`, model.replace(/^deltas-/, 'tool-then-'), turn)),
  // A new chat starts with its socket: the connection (which creates the agent's object) is on the clock,
  // as a new session's first request is for ours.
  'peer (fresh chat)': on(peer, async (model, turn) => {
    const started = performance.now();
    const socket = await peerChat(`bench-fresh-${Date.now()}-${turn}`);
    const connectMs = performance.now() - started;
    try {
      const result = await measurePeer(socket, model, turn);
      return { ...result, ttft: result.ttft + connectMs, totalMs: result.totalMs + connectMs };
    } finally {
      socket.close();
    }
  }),
  'peer (long-lived chat)': on(peer, (model, turn) => measurePeer(peerLongLived, model, turn)),
};

try {
  // Warm up every system (and the long-lived session's first turns).
  for (let turn = 0; turn < 10; turn++) for (const run of Object.values(systems)) await run('deltas-5', -1 - turn);

  // 1. Time to first text event, short answers, systems alternating turn by turn, in a new order
  // each round: a system that always followed the same one would inherit its after-work.
  // And the CPU the system's runtime spent on each turn, the request's own and what it set going
  // (the turn's storage, its reports) until the answer's last byte: what a user pays for a turn.
  const ttft = Object.fromEntries(Object.keys(systems).map((name) => [name, []]));
  const turnCpu = Object.fromEntries(Object.keys(systems).map((name) => [name, []]));
  const runtimes = existsSync('/proc') ? Object.fromEntries(Object.entries(systems).map(([name, run]) => [name, groupRuntimes(run.server.group)])) : undefined;
  for (let turn = 0; turn < TTFT_TURNS; turn++) {
    for (const [name, run] of shuffled(Object.entries(systems))) {
      const before = runtimes && runtimesCpuNs(runtimes[name]);
      ttft[name].push((await run('deltas-5', turn)).ttft);
      if (runtimes) turnCpu[name].push((runtimesCpuNs(runtimes[name]) - before) / 1e6);
    }
  }
  const ttftRows = Object.entries(ttft).map(([name, values]) => ({ name, medianMs: round(median(values)), p99Ms: round(quantile(values, 0.99)), cpuMs: turnCpu[name].length ? round(median(turnCpu[name])) : null }));
  const limitTtft = ttftRows[0].medianMs;
  for (const row of ttftRows) row.ratioToLimit = round(row.medianMs / limitTtft);
  console.log(`BENCH ${JSON.stringify({ name: 'ttft', turns: TTFT_TURNS, rows: ttftRows })}`);

  // 2. Streaming throughput: one long answer, text events per second from the request to the last
  // one, and the CPU its runtime (the system's workerd) spent per event, which a shared machine's
  // other work does not move as it moves a rate.
  const streamed = ['limit', 'limit through a DO', 'limit through a DO that reads the stream', 'the least a turn does (new session)', 'ours (fresh session)', 'peer (fresh chat)'];
  const rates = Object.fromEntries(streamed.map((name) => [name, []]));
  const cpu = Object.fromEntries(streamed.map((name) => [name, []]));
  for (let run = 0; run < THROUGHPUT_RUNS; run++) {
    for (const name of shuffled(Object.keys(rates))) {
      const before = runtimes && runtimesCpuNs(runtimes[name]);
      const result = await systems[name](`deltas-${THROUGHPUT_DELTAS}`, run);
      if (result.count !== THROUGHPUT_DELTAS) throw new Error(`${name}: ${result.count} text events of ${THROUGHPUT_DELTAS}`);
      rates[name].push(result.count / (result.totalMs / 1000));
      if (runtimes) cpu[name].push((runtimesCpuNs(runtimes[name]) - before) / 1e3 / result.count);
    }
  }
  const rateRows = Object.entries(rates).map(([name, values]) => ({ name, eventsPerSecond: Math.round(median(values)), cpuMicrosPerEvent: cpu[name].length ? round(median(cpu[name]), 1) : null }));
  for (const row of rateRows) row.ratioToLimit = round(row.eventsPerSecond / rateRows[0].eventsPerSecond);
  const throughDo = rateRows.find((row) => row.name === 'limit through a DO');
  for (const row of rateRows) row.ratioToDo = round(row.eventsPerSecond / throughDo.eventsPerSecond);
  // Each round's ratio, then their median: the systems of one round share the machine's state, which
  // moves between rounds (a ratio of medians moved by a quarter between runs with nothing changed).
  const paired = (name, floor) => round(median(rates[name].map((rate, run) => rate / rates[floor][run])));
  const pairedRatios = { oursOfDo: paired('ours (fresh session)', 'limit through a DO'), oursOfLeast: paired('ours (fresh session)', 'the least a turn does (new session)') };
  console.log(`BENCH ${JSON.stringify({ name: 'throughput', deltas: THROUGHPUT_DELTAS, runs: THROUGHPUT_RUNS, rows: rateRows, paired: pairedRatios })}`);

  // 5. Concurrency: many sessions at once, a few turns each, every turn read to its end.
  const latencies = [];
  let errors = 0;
  const concurrencyStarted = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENT_SESSIONS }, async (_, session) => {
      const sessionId = `bench-many-${Date.now()}-${session}`;
      for (let turn = 0; turn < TURNS_EACH; turn++) {
        const started = performance.now();
        try {
          const result = await measure(`${ours.base}/sessions/${sessionId}/turns`, { stream: 'delta', messages: [{ role: 'user', content: `turn ${turn}` }] }, 'event: turn_stop');
          if (result.count !== 1) errors++;
          latencies.push(performance.now() - started);
        } catch {
          errors++;
        }
      }
    }),
  );
  console.log(
    `BENCH ${JSON.stringify({
      name: 'concurrency',
      sessions: CONCURRENT_SESSIONS,
      turnsEach: TURNS_EACH,
      seconds: round((performance.now() - concurrencyStarted) / 1000),
      p50Ms: round(quantile(latencies, 0.5)),
      p99Ms: round(quantile(latencies, 0.99)),
      errors,
    })}`,
  );
} finally {
  clearTimeout(guard);
  peerLongLived.close();
  stopAll();
}
process.exit(0);
