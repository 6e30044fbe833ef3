#!/usr/bin/env node
// Long answers, systems side by side (bench/experiments/README.md): answers of 20,000 text deltas
// on new sessions from the least a turn does (`bench/systems/minimal-turn.js`), from ours, and with
// `BEFORE=<checkout>` (a `git worktree` of another commit) from ours there, alternating in a new
// random order each round; for each, the medians of the first text event, the last, the rate, and
// the runtime CPU per event (`/proc`, its dev server's processes). One run of `npm run bench` reads
// each system's rate and CPU in rounds of their own, minutes apart on a machine whose speed moves;
// here they share every round, so the ratios compare like with like. `RUNS` (9). Loopback only;
// bounded in time.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startDevServer } from '../../scripts/dev-server.mjs';
import { groupRuntimeCpuNs, measureTurn, median, round, shuffled } from '../measure.mjs';
import { serviceVars, startBenchUpstream } from '../upstream.mjs';

const DELTAS = 20_000;
const RUNS = Number(process.env.RUNS ?? 9);
const guard = setTimeout(() => (console.error('long-answer: stopped at its 500 s bound'), process.exit(3)), 500_000);
const state = (name) => ['--persist-to', mkdtempSync(join(tmpdir(), `long-answer-${name}-`))];
const upstream = await startBenchUpstream();
const servers = {
  'the least a turn does': await startDevServer({ config: 'bench/systems/minimal-turn.toml', vars: { UPSTREAM_URL: upstream.url }, extraArgs: state('least'), inspector: false }),
  ours: await startDevServer({ vars: serviceVars(upstream.url, DELTAS), extraArgs: state('ours'), inspector: false }),
  ...(process.env.BEFORE
    ? { 'ours before': await startDevServer({ cwd: resolve(process.env.BEFORE), vars: serviceVars(upstream.url, DELTAS), extraArgs: state('before'), inspector: false }) }
    : {}),
};
try {
  const rows = Object.fromEntries(Object.keys(servers).map((name) => [name, { first: [], last: [], rate: [], cpu: [] }]));
  for (let run = -1; run < RUNS; run++) {
    for (const name of shuffled(Object.keys(servers))) {
      const server = servers[name];
      const before = groupRuntimeCpuNs(server.group);
      const result = await measureTurn(`${server.base}/sessions/long-answer-${run}/turns`, `deltas-${DELTAS}`, run);
      // The turn's end (its writes, its log line) belongs to its events too.
      await new Promise((resolve) => setTimeout(resolve, 200));
      if (run < 0) continue; // the first round warms each system up
      const row = rows[name];
      row.first.push(result.ttft);
      row.last.push(result.totalMs);
      row.rate.push((result.count / result.totalMs) * 1000);
      row.cpu.push((groupRuntimeCpuNs(server.group) - before) / 1e3 / DELTAS);
    }
  }
  const least = rows['the least a turn does'];
  for (const [name, row] of Object.entries(rows)) {
    const rate = median(row.rate);
    const cpu = median(row.cpu);
    console.log(
      `${name.padEnd(22)} first text event ${round(median(row.first))} ms, last ${round(median(row.last))} ms, ${Math.round(rate)} events/s (${round(rate / median(least.rate))}x the least's), runtime CPU ${round(cpu)} µs an event (${round(cpu / median(least.cpu))}x)`,
    );
  }
} finally {
  clearTimeout(guard);
  for (const server of Object.values(servers)) server.stop();
  await upstream.close();
}
