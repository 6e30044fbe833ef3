// Cold start: what every new isolate at every edge location pays before the first request. For this
// service and for the "limit through a DO" Worker (bench/systems/limit-do.js): the bundle `wrangler
// deploy --dry-run` would upload (bytes, and gzip as Cloudflare counts it) and the CPU of the Worker's
// startup phase (`wrangler check startup`: the top-level code of the bundle run in workerd with its
// profiler on), the mean of RUNS runs, systems alternating. Prints one `BENCH {json}` line.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { median, round } from './measure.mjs';

const RUNS = 5;
const root = resolve(import.meta.dirname, '..');
const systems = [
  { name: 'ours', config: join(root, 'wrangler.toml') },
  { name: 'limit through a DO', config: join(root, 'bench/systems/limit-do.toml') },
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
  return { upload, bytes: code.length, gzipBytes: gzipSync(code, { level: 9 }).length };
}

/**
 * The CPU of one startup: the sampled time the profiler found the isolate busy (every sample but
 * `(idle)`), in milliseconds, and the profiler's interval. Samples are about a millisecond apart,
 * hence the mean of several runs; a startup shorter than one interval may show no busy sample.
 */
function startupCpuMs(upload) {
  const outfile = join(mkdtempSync(join(tmpdir(), 'bench-startup-')), 'startup.cpuprofile');
  execFileSync(wrangler, ['check', 'startup', '--worker', upload, '--outfile', outfile], { cwd: root, stdio: 'ignore' });
  const profile = JSON.parse(readFileSync(outfile, 'utf8'));
  const idle = new Set(profile.nodes.filter((node) => node.callFrame.functionName === '(idle)').map((node) => node.id));
  let busyMicros = 0;
  profile.samples.forEach((sample, index) => {
    if (!idle.has(sample)) busyMicros += profile.timeDeltas[index] ?? 0;
  });
  intervals.push(median(profile.timeDeltas) / 1000);
  return busyMicros / 1000;
}
const intervals = [];

const bundles = systems.map((system) => ({ ...system, ...bundleOf(system) }));
const cpu = new Map(systems.map((system) => [system.name, []]));
for (let run = 0; run < RUNS; run += 1) {
  for (const system of run % 2 === 0 ? bundles : [...bundles].reverse()) cpu.get(system.name).push(startupCpuMs(system.upload));
}
const mean = (values) => values.reduce((sum, value) => sum + value, 0) / values.length;
// The floor's startup is shorter than the profiler's interval, often with no busy sample: the ratio
// is taken over at least one interval, so it is a lower bound when the floor shows less.
const interval = median(intervals);
const floor = Math.max(mean(cpu.get('limit through a DO')), interval);
const rows = bundles.map((system) => ({
  name: system.name,
  bytes: system.bytes,
  gzipKiB: round(system.gzipBytes / 1024, 1),
  startupCpuMs: round(mean(cpu.get(system.name)), 1),
  startupRuns: cpu.get(system.name).map((value) => round(value, 1)),
  ratioToFloor: round(mean(cpu.get(system.name)) / floor, 2),
}));
console.log(`BENCH ${JSON.stringify({ name: 'startup', runs: RUNS, intervalMs: round(interval, 2), floorMs: round(floor, 2), rows })}`);
