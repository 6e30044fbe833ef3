#!/usr/bin/env node
// What reading the model's answer in JavaScript costs a long answer (bench/experiments/README.md):
// the rate of one answer of 20,000 deltas through the limit through a DO (the object returns the
// upstream's body, which never enters JavaScript), through an object that brings the answer into
// JavaScript and writes it on unparsed, in the network's chunks (`/touch` of
// `bench/systems/limit-do-read.js`) or in reads of up to 64 KiB (`/touch/large`), through the reading
// floor (large reads; splits, parses, writes one event per delta) and through ours. Systems alternate in
// a new random order each round; medians of `RUNS` (9), with each system's runtime CPU per event.
// Loopback only; bounded in time.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevServer } from '../../scripts/dev-server.mjs';
import { groupRuntimeCpuNs, measurePipe, measureReader, measureTurn, median, round, shuffled } from '../measure.mjs';
import { serviceVars, startBenchUpstream } from '../upstream.mjs';

const DELTAS = 20_000;
const RUNS = Number(process.env.RUNS ?? 9);
const guard = setTimeout(() => (console.error('reading: stopped at its 300 s bound'), process.exit(3)), 300_000);
const state = () => ['--persist-to', mkdtempSync(join(tmpdir(), 'reading-'))];
const upstream = await startBenchUpstream();
const pipe = await startDevServer({ inspector: false, config: 'bench/systems/limit-do.toml', vars: { UPSTREAM_URL: upstream.url }, extraArgs: state() });
const reader = await startDevServer({ inspector: false, config: 'bench/systems/limit-do-read.toml', vars: { UPSTREAM_URL: upstream.url }, extraArgs: state() });
const ours = await startDevServer({ inspector: false, vars: serviceVars(upstream.url, DELTAS), extraArgs: state() });
const systems = {
  'the limit through a DO': { server: pipe, send: (run) => measurePipe(`${pipe.base}/`, `deltas-${DELTAS}`, run) },
  'read in the network\'s chunks': { server: reader, send: (run) => measurePipe(`${reader.base}/touch`, `deltas-${DELTAS}`, run) },
  'read in large reads': { server: reader, send: (run) => measurePipe(`${reader.base}/touch/large`, `deltas-${DELTAS}`, run) },
  'the DO that reads the stream': { server: reader, send: (run) => measureReader(`${reader.base}/`, `deltas-${DELTAS}`, run) },
  ours: { server: ours, send: (run) => measureTurn(`${ours.base}/sessions/reading-${run}/turns`, `deltas-${DELTAS}`, run) },
};
try {
  const rows = Object.fromEntries(Object.keys(systems).map((name) => [name, { rate: [], cpu: [] }]));
  for (let run = 0; run < RUNS + 1; run++) {
    for (const name of shuffled(Object.keys(systems))) {
      const { server, send } = systems[name];
      const before = groupRuntimeCpuNs(server.group);
      const result = await send(run);
      if (result.count !== DELTAS) throw new Error(`${name}: ${result.count} text events of ${DELTAS}`);
      if (run === 0) continue; // the first answer warms each system up
      rows[name].rate.push(result.count / (result.totalMs / 1000));
      rows[name].cpu.push((groupRuntimeCpuNs(server.group) - before) / 1e3 / result.count);
    }
  }
  const pipeRate = median(rows['the limit through a DO'].rate);
  for (const [name, row] of Object.entries(rows)) {
    console.log(`${name.padEnd(30)} ${Math.round(median(row.rate)).toLocaleString('en').padStart(8)} events/s, ${round(median(row.rate) / pipeRate)}x the pipe, runtime CPU ${round(median(row.cpu), 1)} µs an event`);
  }
} finally {
  clearTimeout(guard);
  for (const server of [pipe, reader, ours]) server.stop();
  await upstream.close();
}
