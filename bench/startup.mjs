// Cold start: what every new isolate at every edge location pays before the first request. For this
// service and for the "limit through a DO" Worker (bench/systems/limit-do.js): the bundle `wrangler
// deploy --dry-run` would upload (bytes, and gzip as Cloudflare counts it) and the CPU of the Worker's
// startup phase (`wrangler check startup`: the top-level code of the bundle run in workerd with its
// profiler on), the mean of RUNS runs, systems alternating. And what a new isolate costs in all,
// without a profiler: the runtime's CPU to get ready with the bundle, for its first turn, and for a
// turn after it (what the startup's work became, now that each part loads on first use); for ours
// with the demo model, and, beside the least a turn does (bench/systems/minimal-turn.js, offering
// the tools), with the benchmarks' stand-in model, and for a first request its Worker refuses alone
// (a 400: what a Worker isolate that no object shares pays). Prints one `BENCH {json}` line.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Miniflare } from 'miniflare';
import { childRuntimeCpuMs, median, round } from './measure.mjs';
import { serviceVars, startBenchUpstream } from './upstream.mjs';

const RUNS = 10;
const root = resolve(import.meta.dirname, '..');
const systems = [
  { name: 'ours', config: join(root, 'wrangler.toml'), objects: { SESSIONS: 'SessionObject', USERS: 'UserObject' } },
  { name: 'limit through a DO', config: join(root, 'bench/systems/limit-do.toml'), objects: { PIPE: 'Pipe' } },
  { name: 'the least a turn does', config: join(root, 'bench/systems/minimal-turn.toml'), objects: { SESSION: 'Session' } },
];
const wrangler = join(root, 'node_modules/.bin/wrangler');

/**
 * The upload `wrangler deploy --dry-run` makes: the Worker's code (its bytes and gzip), and the
 * whole upload as a file (`--outfile`), which `wrangler check startup` runs.
 */
function bundleOf(system) {
  const outdir = mkdtempSync(join(tmpdir(), 'bench-bundle-'));
  execFileSync(wrangler, ['deploy', '--dry-run', '--config', system.config, '--outdir', outdir], { cwd: root, stdio: 'ignore' });
  const code = readFileSync(join(outdir, readdirSync(outdir).find((name) => name.endsWith('.js'))));
  const upload = join(outdir, 'worker.bundle');
  execFileSync(wrangler, ['deploy', '--dry-run', '--config', system.config, '--outfile', upload], { cwd: root, stdio: 'ignore' });
  return { upload, code: code.toString('utf8'), bytes: code.length, gzipBytes: gzipSync(code, { level: 9 }).length };
}

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

/**
 * A new isolate (the bundle in a fresh runtime, no profiler): its CPU to get ready (the runtime's own
 * start included: the floor's figure says how much that is); then, by `mode`, the first turn of a new
 * session and the turn of another new session after it (`demo`: ours with its demo model; `model`:
 * the stand-in upstream as the model, a streamed turn), or a first request its Worker refuses alone
 * (`refused`: a turn without messages, a 400 before any object).
 */
async function coldIsolate(bundle, run, mode) {
  const runtime = new Miniflare({
    modules: [{ type: 'ESModule', path: '/bundle/index.js', contents: bundle.code }],
    modulesRoot: '/',
    compatibilityDate: '2026-04-20',
    compatibilityFlags: ['nodejs_compat', 'enable_request_signal'],
    durableObjects: Object.fromEntries(Object.entries(bundle.objects).map(([binding, className]) => [binding, { className, useSQLite: true }])),
    bindings: mode === 'demo' ? {} : bundle.name === 'ours' ? serviceVars(upstream.url, 20_000) : { UPSTREAM_URL: upstream.url },
  });
  const before = childRuntimeCpuMs();
  await runtime.ready;
  const ready = childRuntimeCpuMs();
  const post = async (sessionId, body, status) => {
    const query = bundle.name === 'ours' ? '' : '?tools';
    const response = await runtime.dispatchFetch(`http://localhost/sessions/${sessionId}/turns${query}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (response.status !== status) throw new Error(`cold isolate, ${bundle.name}: ${response.status} ${await response.text()}`);
    await response.text();
    return childRuntimeCpuMs();
  };
  const turn = (sessionId) =>
    post(sessionId, mode === 'demo' ? { messages: [{ role: 'user', content: 'hello' }] } : { stream: 'delta', model: 'openai:deltas-5', messages: [{ role: 'user', content: 'hello' }] }, 200);
  const result = { readyMs: ready - before };
  if (mode === 'refused') result.refusedMs = (await post(`cold-${run}`, { stream: 'delta', model: 'openai:deltas-5', messages: [] }, 400)) - ready;
  else if (mode) {
    const first = await turn(`cold-${run}-a`);
    result.firstTurnMs = first - ready;
    result.laterTurnMs = (await turn(`cold-${run}-b`)) - first;
  }
  await runtime.dispose();
  return result;
}

const bundles = systems.map((system) => ({ ...system, ...bundleOf(system) }));
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
  { name: 'the least a turn does, the stand-in model', system: 'the least a turn does', mode: 'model' },
  { name: 'ours, a request its Worker refuses', system: 'ours', mode: 'refused' },
  { name: 'the least a turn does, a request its Worker refuses', system: 'the least a turn does', mode: 'refused' },
  { name: 'limit through a DO', system: 'limit through a DO', mode: undefined },
];
const cold = new Map(coldKinds.map((kind) => [kind.name, []]));
for (let run = 0; run < RUNS; run += 1) {
  for (const kind of run % 2 === 0 ? coldKinds : [...coldKinds].reverse()) {
    cold.get(kind.name).push(await coldIsolate(bundles.find((bundle) => bundle.name === kind.system), run, kind.mode));
  }
}
await upstream.close();
const coldMedian = (name, key) => (cold.get(name)[0][key] === undefined ? undefined : round(median(cold.get(name).map((entry) => entry[key])), 1));
const coldIsolates = coldKinds.map(({ name }) => ({ name, readyMs: coldMedian(name, 'readyMs'), firstTurnMs: coldMedian(name, 'firstTurnMs'), laterTurnMs: coldMedian(name, 'laterTurnMs'), refusedMs: coldMedian(name, 'refusedMs') }));
console.log(`BENCH ${JSON.stringify({ name: 'startup', runs: RUNS, intervalMs: round(interval, 2), floorMs: round(floor, 2), rows, coldIsolates })}`);
