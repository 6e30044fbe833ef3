#!/usr/bin/env node
// How near a turn of the turns API can come to the floor (bench/experiments/README.md): the limit
// through a DO, the floor that stores, then reads (`bench/systems/limit-do-read.js`), the least a
// turn does (`bench/systems/minimal-turn.js`: its `turn_start` at once as ours, with the first text
// event on `?late`, the model asked before the turn is stored on `?fetch-first`, and the default
// agent's tools offered to the model on `?tools`) and ours, each on a long-lived session (object)
// and a new one, measured as `npm run bench` measures them: the same client and upstream, the
// systems alternating request by request in a new random order each round. Prints each one's median
// first text event, its ratio to the limit through a DO (new: to the limit through a new DO) and
// its runtime CPU per request. `ROUNDS` (200); `DIRECT=1` serves each system by its runtime
// directly, past wrangler's proxy worker; `ASSETS=1` adds the least served as ours is, static assets
// in front (`bench/systems/minimal-turn-assets.toml`); `BARE=1` adds ours without the playground's
// assets, so without their router (`bench/systems/ours-without-assets.toml`, a measurement);
// `ONLY='<kind>;<kind>'` keeps those kinds and the two limits. Loopback only; bounded in time.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevServer } from '../../scripts/dev-server.mjs';
import { groupRuntimeCpuNs, measurePipe, measureReader, measureTurn, median, round, shuffled } from '../measure.mjs';
import { serviceVars, startBenchUpstream } from '../upstream.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 200);
const guard = setTimeout(() => (console.error('least: stopped at its 600 s bound'), process.exit(3)), 600_000);
const direct = process.env.DIRECT === '1';
const state = (name) => ['--persist-to', mkdtempSync(join(tmpdir(), `least-${name}-`))];
const upstream = await startBenchUpstream();
const floorVars = { UPSTREAM_URL: upstream.url };
const pipe = await startDevServer({ config: 'bench/systems/limit-do.toml', vars: floorVars, extraArgs: state('pipe'), inspector: false, direct });
const reader = await startDevServer({ config: 'bench/systems/limit-do-read.toml', vars: floorVars, extraArgs: state('reader'), inspector: false, direct });
const least = await startDevServer({ config: 'bench/systems/minimal-turn.toml', vars: floorVars, extraArgs: state('least'), inspector: false, direct });
const ours = await startDevServer({ vars: serviceVars(upstream.url, 20_000), extraArgs: state('ours'), inspector: false, direct });
const assets = process.env.ASSETS === '1' ? await startDevServer({ config: 'bench/systems/minimal-turn-assets.toml', vars: floorVars, extraArgs: state('assets'), inspector: false, direct }) : undefined;
const bare = process.env.BARE === '1' ? await startDevServer({ config: 'bench/systems/ours-without-assets.toml', vars: serviceVars(upstream.url, 20_000), extraArgs: state('bare'), inspector: false, direct }) : undefined;

const turn = (server, session, query = '') => (round) => measureTurn(`${server.base}/sessions/${session(round)}/turns${query}`, 'deltas-5', round);
const kinds = {
  'limit through a DO': { server: pipe, run: (round) => measurePipe(`${pipe.base}/`, 'deltas-5', round) },
  'stores, then reads': { server: reader, run: (round) => measureReader(`${reader.base}/store`, 'deltas-5', round) },
  'the least a turn does': { server: least, run: turn(least, () => 'least-long') },
  'the least, turn_start late': { server: least, run: turn(least, () => 'least-late', '?late') },
  'the least, the model asked first': { server: least, run: turn(least, () => 'least-first', '?fetch-first') },
  'the least, with the tools': { server: least, run: turn(least, () => 'least-tools', '?tools') },
  ours: { server: ours, run: turn(ours, () => 'ours-long') },
  'limit through a new DO': { server: pipe, run: (round) => measurePipe(`${pipe.base}/new`, 'deltas-5', round), fresh: true },
  'stores, then reads, new': { server: reader, run: (round) => measureReader(`${reader.base}/store/new`, 'deltas-5', round), fresh: true },
  'the least a turn does, new': { server: least, run: turn(least, (round) => `least-new-${Date.now()}-${round}`), fresh: true },
  'the least, turn_start late, new': { server: least, run: turn(least, (round) => `least-late-${Date.now()}-${round}`, '?late'), fresh: true },
  'the least, the model asked first, new': { server: least, run: turn(least, (round) => `least-first-${Date.now()}-${round}`, '?fetch-first'), fresh: true },
  'the least, with the tools, new': { server: least, run: turn(least, (round) => `least-tools-${Date.now()}-${round}`, '?tools'), fresh: true },
  'ours, new session': { server: ours, run: turn(ours, (round) => `ours-new-${Date.now()}-${round}`), fresh: true },
  ...(assets
    ? {
        'the least, assets before it': { server: assets, run: turn(assets, () => 'assets-long') },
        'the least, tools, assets before it': { server: assets, run: turn(assets, () => 'assets-tools', '?tools') },
        'the least, assets before it, new': { server: assets, run: turn(assets, (round) => `assets-new-${Date.now()}-${round}`), fresh: true },
        'the least, tools, assets before it, new': { server: assets, run: turn(assets, (round) => `assets-tools-${Date.now()}-${round}`, '?tools'), fresh: true },
      }
    : {}),
  ...(bare
    ? {
        'ours without the router': { server: bare, run: turn(bare, () => 'bare-long') },
        'ours without the router, new': { server: bare, run: turn(bare, (round) => `bare-new-${Date.now()}-${round}`), fresh: true },
      }
    : {}),
};
// The floors always run: every ratio is taken over them.
const only = process.env.ONLY?.split(';');
for (const name of Object.keys(kinds)) if (only && !only.includes(name) && !name.startsWith('limit through')) delete kinds[name];
try {
  for (let round = 0; round < 10; round++) for (const kind of Object.values(kinds)) await kind.run(-1 - round);
  const rows = Object.fromEntries(Object.keys(kinds).map((name) => [name, { text: [], cpu: [] }]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of shuffled(Object.keys(kinds))) {
      const { server, run } = kinds[name];
      const before = groupRuntimeCpuNs(server.group);
      const { ttft } = await run(round);
      rows[name].text.push(ttft);
      rows[name].cpu.push((groupRuntimeCpuNs(server.group) - before) / 1e6);
    }
  }
  const floor = median(rows['limit through a DO'].text);
  const newFloor = median(rows['limit through a new DO'].text);
  for (const [name, row] of Object.entries(rows)) {
    const text = median(row.text);
    const ratio = text / (kinds[name].fresh ? newFloor : floor);
    console.log(`${name.padEnd(40)} first text event ${round(text).toFixed(2)} ms  ${round(ratio).toFixed(2)}x  runtime CPU ${round(median(row.cpu)).toFixed(2)} ms`);
  }
} finally {
  clearTimeout(guard);
  for (const server of [pipe, reader, least, ours, assets, bare]) server?.stop();
  await upstream.close();
}
