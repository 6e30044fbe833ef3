#!/usr/bin/env node
// Where the time to the first text event goes, inside the isolate (bench/experiments/README.md).
// Needs the marks: `git apply bench/experiments/timeline.patch` first; `git checkout src && rm
// src/lib/probe.ts` after.
// 400 streamed turns (a long-lived session, or `NEW=1`: a new session each), one after the other
// (or `COLD=1`: each after a request to the bare pass-through and a pause, as the bench leaves ours),
// against the benchmarks' stand-in upstream; prints the client's time to the first text event and
// the mean time of each mark from the Worker's first line (workerd's clock moves in whole
// milliseconds; a mean over hundreds of turns resolves finer). Loopback only; bounded in time.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevServer } from '../../scripts/dev-server.mjs';
import { measurePipe, measureTurn, median, round } from '../measure.mjs';
import { serviceVars, startBenchUpstream } from '../upstream.mjs';

const TURNS = 400;
const guard = setTimeout(() => (console.error('timeline: stopped at its 300 s bound'), process.exit(3)), 300_000);
const upstream = await startBenchUpstream();
const direct = process.env.DIRECT === '1';
const ours = await startDevServer({ inspector: false, direct, vars: serviceVars(upstream.url, 20_000), extraArgs: ['--persist-to', mkdtempSync(join(tmpdir(), 'timeline-'))] });
// `COLD=1`: each turn after a request to the bare pass-through and a 20 ms pause, as the bench's alternating rounds leave ours.
const limit = process.env.COLD ? await startDevServer({ inspector: false, direct, config: 'bench/systems/limit.toml', vars: { UPSTREAM_URL: upstream.url } }) : undefined;
const session = process.env.NEW ? (turn) => `timeline-new-${turn}` : () => 'timeline-long';
try {
  const ttft = [];
  for (let turn = 0; turn < TURNS; turn++) {
    if (limit) {
      await measurePipe(`${limit.base}/`, 'deltas-5', turn);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    ttft.push((await measureTurn(`${ours.base}/sessions/${session(turn)}/turns`, 'deltas-5', turn)).ttft);
  }
  console.log(`client: first text event, median of the last ${TURNS - 100}: ${round(median(ttft.slice(100)))} ms`);
  const probe = ours.log().split('\n').filter((line) => line.includes('PROBE')).at(-1);
  if (!probe) throw new Error('no marks in the log: apply bench/experiments/timeline.patch first');
  for (const [name, ms] of Object.entries(JSON.parse(probe.slice(probe.indexOf('{'), probe.lastIndexOf('}') + 1)))) console.log(`${String(ms).padStart(8)} ms  ${name}`);
} finally {
  clearTimeout(guard);
  ours.stop();
  limit?.stop();
  await upstream.close();
}
