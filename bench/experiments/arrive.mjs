#!/usr/bin/env node
// Where a first text event's time goes on either side of the model (bench/experiments/README.md):
// for each kind of request, when it reached the upstream's handler (its headers), when its body had
// all come, when the upstream answered, and when the client read the first text event and the
// stream's end, all on this process's clock (the stand-in upstream runs here, beside the client).
// The kinds: the floor that stores, then reads
// (`bench/systems/limit-do-read.js` on `/store`), the same streaming back at once with a first event
// as ours does (`/store/early`), the reading floor that stores nothing (`/`), the least a turn does
// (`bench/systems/minimal-turn.js`), ours on a long-lived session, and with `NEW=1` a new object or
// session each time; with `BEFORE=<checkout>` (a `git worktree` of another commit, as for `npm run
// bench:compare`) ours there too, measured in the same rounds; with `ASSETS=1` the least served as
// ours is (`bench/systems/minimal-turn-assets.toml`, offering the tools). `ONLY='<kind>;<kind>'`
// keeps those kinds; `TAILS=1` prints each kind's p90 and p99 too, before and after its model
// request; `PAUSE_MS` waits after each request; `ROUNDS` (300); `SEED=<turns>` gives each
// long-lived session that many turns before the rounds (a long history); `INSPECTOR=on` serves each
// system with `wrangler dev`'s DevTools inspector, as the bench did before (bench/PROFILE.md, "The
// dev server's inspector"). `MODEL=paced-5-10` has the stand-in take 10 ms before each delta, as a
// model takes time to its first token (the default, `deltas-5`, answers at once); `MODEL=tool-then-5`
// (or `tool-then-5-10`) has it call a tool first, so the first text event comes after a tool's step
// and a second model request. Kinds alternate in
// a new random order each round; medians, the first 30 rounds left out. Each request's runtime CPU is
// printed too. Loopback only; bounded in time.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startDevServer } from '../../scripts/dev-server.mjs';
import { groupRuntimeCpuNs, measureReader, measureTurn, median, quantile, round, shuffled } from '../measure.mjs';
import { serviceVars, startBenchUpstream } from '../upstream.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 300);
const tails = process.env.TAILS === '1';
const guard = setTimeout(() => (console.error('arrive: stopped at its 600 s bound'), process.exit(3)), 600_000);
const state = (name) => ['--persist-to', mkdtempSync(join(tmpdir(), `arrive-${name}-`))];
const inspector = process.env.INSPECTOR === 'on';
const direct = process.env.DIRECT === '1';
const upstream = await startBenchUpstream();
const reader = await startDevServer({ config: 'bench/systems/limit-do-read.toml', vars: { UPSTREAM_URL: upstream.url }, extraArgs: state('floor'), inspector, direct });
const least = await startDevServer({ config: 'bench/systems/minimal-turn.toml', vars: { UPSTREAM_URL: upstream.url }, extraArgs: state('least'), inspector, direct });
const ours = await startDevServer({ vars: serviceVars(upstream.url, 20_000), extraArgs: state('ours'), inspector, direct });
const before = process.env.BEFORE ? await startDevServer({ cwd: resolve(process.env.BEFORE), vars: serviceVars(upstream.url, 20_000), extraArgs: state('before'), inspector, direct }) : undefined;
const assets = process.env.ASSETS === '1' ? await startDevServer({ config: 'bench/systems/minimal-turn-assets.toml', vars: { UPSTREAM_URL: upstream.url }, extraArgs: state('assets'), inspector, direct }) : undefined;
const servers = [reader, least, ours, before, assets].filter(Boolean);

const model = process.env.MODEL ?? 'deltas-5';
const floor = (path) => (turn) => measureReader(`${reader.base}${path}`, model, turn);
const service = (server, session, query = '') => (turn) => measureTurn(`${server.base}/sessions/${session(turn)}/turns${query}`, model, turn);
const kinds = {
  'floor: stores, then reads': floor('/store'),
  'floor: stores, streams at once': floor('/store/early'),
  'floor: reads, stores nothing': floor('/'),
  'the least a turn does': service(least, () => 'arrive-least'),
  'the least, the model asked first': service(least, () => 'arrive-least-first', '?fetch-first'),
  ours: service(ours, () => 'arrive-long'),
  ...(before ? { 'ours before': service(before, () => 'arrive-long') } : {}),
  ...(assets ? { 'the least served as ours is': service(assets, () => 'arrive-assets', '?tools') } : {}),
  ...(process.env.NEW
    ? {
        'new floor: stores, streams at once': floor('/store/early/new'),
        'the least a turn does, new session': service(least, (turn) => `arrive-least-${turn}`),
        'ours, new session': service(ours, (turn) => `arrive-new-${turn}`),
        ...(before ? { 'ours before, new session': service(before, (turn) => `arrive-new-${turn}`) } : {}),
        ...(assets ? { 'the least served as ours is, new session': service(assets, (turn) => `arrive-assets-${turn}`, '?tools') } : {}),
      }
    : {}),
};
const serverOf = (kind) =>
  kind.startsWith('ours before') ? before : kind.startsWith('ours') ? ours : kind.startsWith('the least served') ? assets : kind.startsWith('the least') ? least : reader;
const only = process.env.ONLY?.split(';');
const chosen = Object.keys(kinds).filter((kind) => !only || only.includes(kind));
try {
  const seeded = chosen.filter((kind) => !kind.startsWith('floor') && !kind.includes('new'));
  for (let turn = 0; turn < Number(process.env.SEED ?? 0); turn++) for (const kind of seeded) await kinds[kind](turn);
  const rows = Object.fromEntries(chosen.map((kind) => [kind, { arrived: [], received: [], answered: [], text: [], end: [], cpu: [] }]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const kind of shuffled(chosen)) {
      const cpuBefore = groupRuntimeCpuNs(serverOf(kind).group);
      const started = performance.now();
      const { ttft } = await kinds[kind](round);
      const end = performance.now() - started;
      const cpu = (groupRuntimeCpuNs(serverOf(kind).group) - cpuBefore) / 1e6;
      if (round >= 30) {
        rows[kind].arrived.push(upstream.last.arrived - started);
        rows[kind].received.push(upstream.last.received - started);
        rows[kind].answered.push(upstream.last.answered - started);
        rows[kind].text.push(ttft);
        rows[kind].end.push(end);
        rows[kind].cpu.push(cpu);
      }
      if (process.env.PAUSE_MS) await new Promise((done) => setTimeout(done, Number(process.env.PAUSE_MS)));
    }
  }
  for (const [kind, row] of Object.entries(rows)) {
    console.log(`${kind.padEnd(42)} request at the upstream ${round(median(row.arrived))} ms, its body ${round(median(row.received))} ms, answered ${round(median(row.answered))} ms, first text event ${round(median(row.text))} ms, stream's end ${round(median(row.end))} ms, runtime CPU ${round(median(row.cpu))} ms`);
    if (!tails) continue;
    // The first event's time on either side of the model request, each at the median, p90 and p99.
    const after = row.text.map((text, index) => text - row.arrived[index]);
    const spread = (values) => [0.5, 0.9, 0.99].map((share) => round(quantile(values, share))).join(' / ');
    console.log(`${''.padEnd(42)} (p50 / p90 / p99) first text event ${spread(row.text)} ms: before the request ${spread(row.arrived)}, after it ${spread(after)}; runtime CPU ${spread(row.cpu)}`);
  }
} finally {
  clearTimeout(guard);
  for (const server of servers) server.stop();
  await upstream.close();
}
