#!/usr/bin/env node
// `npm run bench:compare -- <other checkout>`: before and after, measured side by side. The service
// at another checkout of this repository (A: a `git worktree` of an earlier commit, say) and at this
// one (B) run under `wrangler dev` at once, with the bare pass-through, against one stand-in
// upstream; their turns alternate in a new random order each round. Prints the time to the first
// text event (a long-lived and a new session) and the throughput of one long answer, each over the
// pass-through. Loopback only; bounded in time.
//   git worktree add /tmp/before <commit> && ln -s "$PWD/node_modules" /tmp/before/node_modules
// (a commit whose dependencies differ from this one's gets its own: `(cd /tmp/before && npm ci)`).
//   npm run bench:compare -- /tmp/before
// `COMPARE_VARS` (JSON) adds vars to both services, `COMPARE_B_VARS` to B only: the cost of a setting,
// e.g. COMPARE_VARS='{"RATE_LIMIT_PER_MINUTE":"1000000"}' COMPARE_B_VARS='{"USER_DAILY_TOKENS":"1000000000"}'.
// `COMPARE_DIRECT=1` sends every request to each dev server's runtime itself, past wrangler's proxy
// worker (bench/PROFILE.md, "The dev server's proxy").
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startDevServer } from '../scripts/dev-server.mjs';
import { measurePipe, measureTurn, shuffled, median, round } from './measure.mjs';
import { serviceVars, startBenchUpstream } from './upstream.mjs';

const TURNS = 150;
const THROUGHPUT_DELTAS = 20_000;
const THROUGHPUT_RUNS = 5;
const TIME_LIMIT_MS = 300_000;

const other = process.argv[2] && resolve(process.argv[2]);
if (!other || !existsSync(join(other, 'wrangler.toml'))) {
  console.error('npm run bench:compare -- <another checkout of this repository>');
  process.exit(2);
}
const guard = setTimeout(() => {
  console.error(`bench compare: stopped at its ${TIME_LIMIT_MS / 1000} s bound`);
  process.exit(3);
}, TIME_LIMIT_MS);

const upstream = await startBenchUpstream();
const vars = { ...serviceVars(upstream.url, THROUGHPUT_DELTAS), ...JSON.parse(process.env.COMPARE_VARS ?? '{}') };
const direct = process.env.COMPARE_DIRECT === '1';
const state = () => ['--persist-to', mkdtempSync(join(tmpdir(), 'bench-compare-'))];
const limit = await startDevServer({ inspector: false, direct, config: 'bench/systems/limit.toml', vars: { UPSTREAM_URL: upstream.url } });
const before = await startDevServer({ inspector: false, direct, cwd: other, vars, extraArgs: state() });
const after = await startDevServer({ inspector: false, direct, vars: { ...vars, ...JSON.parse(process.env.COMPARE_B_VARS ?? '{}') }, extraArgs: state() });

const pass = (model, turn) => measurePipe(`${limit.base}/`, model, turn);
const turnOn = (server, session) => (model, turn) =>
  measureTurn(`${server.base}/sessions/${session === 'new' ? `compare-new-${Date.now()}-${turn}` : 'compare-long'}/turns`, model, turn);
const systems = {
  limit: pass,
  'A long-lived': turnOn(before, 'long'),
  'B long-lived': turnOn(after, 'long'),
  'A new session': turnOn(before, 'new'),
  'B new session': turnOn(after, 'new'),
};

try {
  for (let turn = 0; turn < 10; turn++) for (const run of Object.values(systems)) await run('deltas-5', -1 - turn);
  const ttft = Object.fromEntries(Object.keys(systems).map((name) => [name, []]));
  for (let turn = 0; turn < TURNS; turn++) {
    for (const [name, run] of shuffled(Object.entries(systems))) ttft[name].push((await run('deltas-5', turn)).ttft);
  }
  const limitMs = median(ttft.limit);
  console.log(`first text event (median of ${TURNS}, over the pass-through at ${round(limitMs)} ms):`);
  for (const [name, values] of Object.entries(ttft)) console.log(`  ${name.padEnd(14)} ${round(median(values)).toFixed(2).padStart(7)} ms  ${round(median(values) / limitMs).toFixed(2)}x`);

  const rates = { limit: [], 'A new session': [], 'B new session': [] };
  for (let run = 0; run < THROUGHPUT_RUNS; run++) {
    for (const name of shuffled(Object.keys(rates))) {
      const result = await systems[name](`deltas-${THROUGHPUT_DELTAS}`, 1000 + run);
      if (result.count !== THROUGHPUT_DELTAS) throw new Error(`${name}: ${result.count} text events of ${THROUGHPUT_DELTAS}`);
      rates[name].push(result.count / (result.totalMs / 1000));
    }
  }
  const limitRate = median(rates.limit);
  console.log(`throughput, ${THROUGHPUT_DELTAS.toLocaleString('en')} deltas (median of ${THROUGHPUT_RUNS}):`);
  for (const [name, values] of Object.entries(rates)) console.log(`  ${name.padEnd(14)} ${Math.round(median(values)).toLocaleString('en').padStart(7)}/s  ${round(median(values) / limitRate).toFixed(2)}x`);
} finally {
  clearTimeout(guard);
  limit.stop();
  before.stop();
  after.stop();
  await upstream.close();
}
process.exit(0);
