#!/usr/bin/env node
// Runs the storage-gate experiment (bench/experiments/gate.js): 300 rounds, the kinds in a new random
// order each round; prints each kind's median time to the first text, and the object's own means.
// Loopback only; bounded in time.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevServer } from '../../scripts/dev-server.mjs';
import { measurePipe, median, round, shuffled } from '../measure.mjs';
import { startBenchUpstream } from '../upstream.mjs';

const KINDS = (process.env.KINDS ?? 'plain,write1,write8,writelater,busy').split(',');
const ROUNDS = 300;
const guard = setTimeout(() => (console.error('gate: stopped at its 300 s bound'), process.exit(3)), 300_000);
const upstream = await startBenchUpstream();
const gate = await startDevServer({ inspector: false, config: 'bench/experiments/gate.toml', vars: { UPSTREAM_URL: upstream.url }, extraArgs: ['--persist-to', mkdtempSync(join(tmpdir(), 'gate-'))] });
try {
  const ttft = Object.fromEntries(KINDS.map((kind) => [kind, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const kind of shuffled(KINDS)) {
      ttft[kind].push((await measurePipe(`${gate.base}/${kind}`, 'deltas-5', round)).ttft);
    }
  }
  for (const kind of KINDS) console.log(`${kind.padEnd(10)} first text event ${round(median(ttft[kind].slice(50)))} ms`);
  for (const kind of KINDS) console.log(gate.log().split('\n').filter((line) => line.includes(`GATE ${kind} `)).at(-1));
} finally {
  clearTimeout(guard);
  gate.stop();
  await upstream.close();
}
