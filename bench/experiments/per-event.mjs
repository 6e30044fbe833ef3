#!/usr/bin/env node
// What ours spends on each event of a long answer (bench/experiments/README.md): the runtime CPU of
// its workerd (`/proc`, user and system time) over answers of 20,000 text deltas on new sessions,
// per event, median of RUNS. Run it at a commit, then with one step of the per-event path taken out
// (an ablation, never committed), and compare. Loopback only; bounded in time.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevServer } from '../../scripts/dev-server.mjs';
import { groupRuntimeCpuNs, measure, measureTurn, median, round } from '../measure.mjs';
import { serviceVars, startBenchUpstream } from '../upstream.mjs';

const DELTAS = 20_000;
const RUNS = Number(process.env.RUNS ?? 9);
const guard = setTimeout(() => (console.error('per-event: stopped at its 300 s bound'), process.exit(3)), 300_000);
const upstream = await startBenchUpstream();
const ours = await startDevServer({ inspector: false, vars: serviceVars(upstream.url, DELTAS), extraArgs: ['--persist-to', mkdtempSync(join(tmpdir(), 'per-event-'))] });
try {
  const body = (run) => ({ stream: 'delta', model: `openai:deltas-${DELTAS}`, messages: [{ role: 'user', content: `hello ${run}` }] });
  await measure(`${ours.base}/sessions/per-event-warm/turns`, body(-1), 'event: turn_stop');
  const cpu = [];
  const rates = [];
  for (let run = 0; run < RUNS; run++) {
    const before = groupRuntimeCpuNs(ours.group);
    const result = await measureTurn(`${ours.base}/sessions/per-event-${run}/turns`, `deltas-${DELTAS}`, run);
    // The turn's end (its writes, its log line) belongs to its events too.
    await new Promise((resolve) => setTimeout(resolve, 200));
    cpu.push((groupRuntimeCpuNs(ours.group) - before) / 1e3 / DELTAS);
    rates.push((result.count / result.totalMs) * 1000);
  }
  console.log(`runtime CPU per event ${round(median(cpu), 1)} µs (runs: ${cpu.map((value) => round(value, 1)).join(', ')}); events per second ${Math.round(median(rates))}`);
} finally {
  clearTimeout(guard);
  ours.stop();
  await upstream.close();
}
