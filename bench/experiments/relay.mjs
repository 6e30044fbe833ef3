#!/usr/bin/env node
// What `wrangler dev`'s DevTools inspector costs each system (bench/experiments/README.md): the CPU
// each process of a system's dev server spends per request (from /proc/<pid>/task/*/schedstat), with
// the inspector on (`npx wrangler dev`) and off (scripts/dev-worker.mjs), for the pipe through a DO,
// the reading floor and ours, on a short answer and on one of 20,000 deltas. With the inspector on,
// its relay (wrangler's InspectorProxyWorker in the dev server's proxy runtime, and wrangler's Node
// process behind it) receives each console line and each chunk of each subrequest's body. Loopback
// only; bounded in time.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevServer } from '../../scripts/dev-server.mjs';
import { groupCpuNs, measurePipe, measureReader, measureTurn, round } from '../measure.mjs';
import { serviceVars, startBenchUpstream } from '../upstream.mjs';

const guard = setTimeout(() => (console.error('relay: stopped at its 600 s bound'), process.exit(3)), 600_000);
const upstream = await startBenchUpstream();
const state = () => ['--persist-to', mkdtempSync(join(tmpdir(), 'relay-'))];
const floor = (config, send) => ({
  start: (inspector) => startDevServer({ config, vars: { UPSTREAM_URL: upstream.url }, extraArgs: state(), inspector }),
  send: (server, deltas, turn) => send(`${server.base}/`, `deltas-${deltas}`, turn),
});
const systems = {
  'limit through a DO': floor('bench/systems/limit-do.toml', measurePipe),
  'the DO that reads the stream': floor('bench/systems/limit-do-read.toml', measureReader),
  ours: {
    start: (inspector) => startDevServer({ vars: serviceVars(upstream.url, 20_000), extraArgs: state(), inspector }),
    send: (server, deltas, turn) => measureTurn(`${server.base}/sessions/relay/turns`, `deltas-${deltas}`, turn),
  },
};

try {
  for (const [name, system] of Object.entries(systems)) {
    for (const inspector of [true, false]) {
      const server = await system.start(inspector);
      try {
        for (const [deltas, requests] of [[5, 200], [20_000, 5]]) {
          for (let turn = 0; turn < 3; turn++) await system.send(server, deltas, turn);
          const before = groupCpuNs(server.group);
          const started = performance.now();
          for (let turn = 0; turn < requests; turn++) await system.send(server, deltas, turn);
          const wall = (performance.now() - started) / requests;
          const after = groupCpuNs(server.group);
          const spent = Object.entries(after)
            .map(([process, ns]) => [process.split(' ')[0], (ns - (before[process] ?? 0)) / 1e6 / requests])
            .filter(([, ms]) => ms >= 0.05)
            .map(([process, ms]) => `${process} ${round(ms)}`);
          console.log(`${name}, inspector ${inspector ? 'on' : 'off'}, ${deltas} deltas: ${round(wall)} ms a request; CPU ms a request: ${spent.join(', ')}`);
        }
      } finally {
        server.stop();
      }
    }
  }
} finally {
  clearTimeout(guard);
  await upstream.close();
}
