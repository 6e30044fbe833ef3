// Cold start: what every new isolate at every edge location pays before the first request. For this
// service and for the "limit through a DO" Worker (bench/systems/limit-do.js): the bundle `wrangler
// deploy --dry-run` would upload (bytes, and gzip as Cloudflare counts it) and the CPU of the Worker's
// startup phase (`wrangler check startup`: the top-level code of the bundle run in workerd with its
// profiler on), the mean of RUNS runs, systems alternating. And what a new isolate costs in all,
// without a profiler: the runtime's CPU to get ready with the bundle, for its first turn, and for a
// turn after it (what the startup's work became, now that each part loads on first use); for ours
// with the demo model, and, beside the least a turn does (bench/systems/minimal-turn.js, offering
// the tools), with the benchmarks' stand-in model, and for a first request its Worker refuses alone
// (a 400: what a Worker isolate that no object shares pays); and for ours the first turn once its
// Worker has refused a plain request, which is then mostly its session object's, as in a
// deployment whose objects run in isolates of their own. Prints one `BENCH {json}` line.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { bundleOf, coldIsolate } from './cold-isolate.mjs';
import { median, round } from './measure.mjs';
import { startBenchUpstream } from './upstream.mjs';

const RUNS = 10;
const root = resolve(import.meta.dirname, '..');
const systems = [
  { name: 'ours', ours: true, config: join(root, 'wrangler.toml'), objects: { SESSIONS: 'SessionObject', USERS: 'UserObject' } },
  { name: 'limit through a DO', config: join(root, 'bench/systems/limit-do.toml'), objects: { PIPE: 'Pipe' } },
  { name: 'the least a turn does', config: join(root, 'bench/systems/minimal-turn.toml'), objects: { SESSION: 'Session' } },
];
const wrangler = join(root, 'node_modules/.bin/wrangler');

/**
 * The CPU of one startup: the sampled time the profiler found the isolate busy (every sample but
 * `(idle)`), in milliseconds, each sample counted as the time since the one before it. Hence the
 * mean of several runs: a startup shorter than the sampling shows as one busy sample or none. The
 * busy samples' spacing is kept (an idle profile is one long sample, which says nothing of it).
 */
function startupCpuMs(upload, spacing) {
  const outfile = join(mkdtempSync(join(tmpdir(), 'bench-startup-')), 'startup.cpuprofile');
  execFileSync(wrangler, ['check', 'startup', '--worker', upload, '--outfile', outfile], { cwd: root, stdio: 'ignore' });
  const profile = JSON.parse(readFileSync(outfile, 'utf8'));
  const idle = new Set(profile.nodes.filter((node) => node.callFrame.functionName === '(idle)').map((node) => node.id));
  let busyMicros = 0;
  profile.samples.forEach((sample, index) => {
    if (idle.has(sample)) return;
    busyMicros += profile.timeDeltas[index] ?? 0;
    spacing?.push((profile.timeDeltas[index] ?? 0) / 1000);
  });
  return busyMicros / 1000;
}
/** The busy samples' spacing in ours' and the floor's profiles (the least's, many and dense, would narrow it). */
const intervals = [];

const bundles = systems.map((system) => ({ ...system, ...bundleOf(system, root) }));
const cpu = new Map(systems.map((system) => [system.name, []]));
for (let run = 0; run < RUNS; run += 1) {
  for (const system of run % 2 === 0 ? bundles : [...bundles].reverse()) cpu.get(system.name).push(startupCpuMs(system.upload, system.name === 'the least a turn does' ? undefined : intervals));
}
const mean = (values) => values.reduce((sum, value) => sum + value, 0) / values.length;
// The floor's startup is shorter than the profiler's interval, often with no busy sample: the ratio
// is taken over at least one interval (when any run showed one), so it is a lower bound when the
// floor shows less.
const interval = intervals.length > 0 ? median(intervals) : 0;
const floor = Math.max(mean(cpu.get('limit through a DO')), interval);
const rows = bundles.map((system) => ({
  name: system.name,
  bytes: system.bytes,
  gzipKiB: round(system.gzipBytes / 1024, 1),
  startupCpuMs: round(mean(cpu.get(system.name)), 1),
  startupRuns: cpu.get(system.name).map((value) => round(value, 1)),
  ratioToFloor: round(mean(cpu.get(system.name)) / floor, 2),
}));
// Systems alternating, as above. The turns log a line each; the runtime's output is not this script's.
const upstream = await startBenchUpstream();
const coldKinds = [
  { name: 'ours, the demo model', system: 'ours', mode: 'demo' },
  { name: 'ours, the stand-in model', system: 'ours', mode: 'model' },
  { name: "ours, the stand-in model, the session object's first turn (its Worker's part loaded first)", system: 'ours', mode: 'object' },
  { name: 'the least a turn does, the stand-in model', system: 'the least a turn does', mode: 'model' },
  { name: 'ours, a request its Worker refuses', system: 'ours', mode: 'refused' },
  { name: 'ours, a plain turn its Worker refuses for its model', system: 'ours', mode: 'plain' },
  { name: 'ours, a chat socket its Worker refuses for its subprotocol', system: 'ours', mode: 'socket' },
  { name: 'the least a turn does, a request its Worker refuses', system: 'the least a turn does', mode: 'refused' },
  { name: 'limit through a DO', system: 'limit through a DO', mode: undefined },
];
const cold = new Map(coldKinds.map((kind) => [kind.name, []]));
for (let run = 0; run < RUNS; run += 1) {
  for (const kind of run % 2 === 0 ? coldKinds : [...coldKinds].reverse()) {
    cold.get(kind.name).push(await coldIsolate(bundles.find((bundle) => bundle.name === kind.system), run, kind.mode, upstream));
  }
}
await upstream.close();
const coldMedian = (name, key) => (cold.get(name)[0][key] === undefined ? undefined : round(median(cold.get(name).map((entry) => entry[key])), 1));
const coldIsolates = coldKinds.map(({ name }) => ({ name, readyMs: coldMedian(name, 'readyMs'), firstTurnMs: coldMedian(name, 'firstTurnMs'), laterTurnMs: coldMedian(name, 'laterTurnMs'), refusedMs: coldMedian(name, 'refusedMs') }));
console.log(`BENCH ${JSON.stringify({ name: 'startup', runs: RUNS, intervalMs: round(interval, 2), floorMs: round(floor, 2), rows, coldIsolates })}`);
