#!/usr/bin/env node
// What a turn costs the runtime below JavaScript, ours beside the least a turn does
// (bench/experiments/README.md): each system served alone, warmed, then `TURNS` short turns (500)
// one after the other on a long-lived session (with `NEW=1`, a new session each) while `perf record`
// samples its workerd processes; then the runtime's CPU a turn by symbol (the V8 builtins and
// runtime, SQLite, the kernel, workerd's own), the two side by side, largest difference first.
// `SYSCALLS=1` counts system calls a turn instead (`strace -c`): a connection opened per turn, or
// the pages and syncs a commit writes, show there. `WINDOW=1` (200 turns) traces the scheduler and
// the reads and writes instead, and tells where the runtime's thread spent each turn's wait for its
// model (`wait-window.mjs`). `DIRECT=1` serves each system past the dev server's proxy. Needs `perf`
// (`WINDOW=1`: and the kernel's tracepoints, as root) or `strace`. The JavaScript compiled at run
// time has no symbols here: it shows as addresses, so read the builtins and the runtime's own work,
// not which function of ours ran. Loopback only; bounded in time.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevServer } from '../../scripts/dev-server.mjs';
import { groupRuntimes, measureTurn } from '../measure.mjs';
import { serviceVars, startBenchUpstream } from '../upstream.mjs';
import { WINDOW_EVENTS, WINDOW_HZ, waitWindows } from './wait-window.mjs';

const syscalls = process.env.SYSCALLS === '1';
const waits = process.env.WINDOW === '1';
const TURNS = Number(process.env.TURNS ?? (waits ? 200 : 500));
const HZ = 4999;
const tool = syscalls ? 'strace' : 'perf';
try {
  execFileSync(tool, ['--version'], { stdio: 'ignore' });
} catch {
  console.error(`native: needs ${tool} (Debian: apt-get install ${syscalls ? 'strace' : 'linux-perf'})`);
  process.exit(2);
}
const guard = setTimeout(() => (console.error('native: stopped at its 600 s bound'), process.exit(3)), 600_000);
const dir = mkdtempSync(join(tmpdir(), 'native-'));
const upstream = await startBenchUpstream();
const systems = {
  'the least a turn does': { config: 'bench/systems/minimal-turn.toml', vars: { UPSTREAM_URL: upstream.url } },
  ours: { vars: serviceVars(upstream.url, 20_000) },
};

/** `name`'s turns under the tool; the file it wrote. */
async function record(name, { config, vars }) {
  const server = await startDevServer({ config, vars, inspector: false, direct: process.env.DIRECT === '1', extraArgs: ['--persist-to', mkdtempSync(join(dir, 'state-'))] });
  const session = (turn) => (process.env.NEW ? `native-new-${turn}` : 'native-long');
  try {
    for (let turn = 0; turn < 50; turn++) await measureTurn(`${server.base}/sessions/${session(-1 - turn)}/turns`, 'deltas-5', turn);
    const out = join(dir, name.replace(/\W+/g, '-'));
    const pids = groupRuntimes(server.group);
    const args = syscalls
      ? ['-c', '-f', '-o', out, ...pids.flatMap((pid) => ['-p', pid])]
      : waits
        ? ['record', '-q', '-F', String(WINDOW_HZ), ...WINDOW_EVENTS.flatMap((event) => ['-e', event]), '-o', out, '-p', pids.join(',')]
        : ['record', '-q', '-F', String(HZ), '-o', out, '-p', pids.join(',')];
    const tracer = spawn(tool, args, { stdio: 'ignore' });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    for (let turn = 0; turn < TURNS; turn++) await measureTurn(`${server.base}/sessions/${session(turn)}/turns`, 'deltas-5', turn);
    tracer.kill('SIGINT');
    await new Promise((resolve) => tracer.on('exit', resolve));
    return out;
  } finally {
    server.stop();
  }
}

/** Per turn: µs of runtime CPU by symbol (perf), or calls by system call (strace). */
function perTurn(file) {
  const counts = new Map();
  if (syscalls) {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const row = /^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)$/.exec(line);
      if (row && row[2] !== 'total') counts.set(row[2], Number(row[1]) / TURNS);
    }
    return counts;
  }
  const report = execFileSync('perf', ['report', '-i', file, '-n', '--sort', 'sym', '--stdio'], { encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'ignore'] });
  for (const line of report.split('\n')) {
    const row = /^\s*[\d.]+%\s+(\d+)\s+\[.\]\s+(.*)$/.exec(line);
    if (row) counts.set(row[2].slice(0, 100), (counts.get(row[2].slice(0, 100)) ?? 0) + (Number(row[1]) / HZ / TURNS) * 1e6);
  }
  return counts;
}

/** Where each system's runtime thread spent the wait for its model. */
async function reportWindows() {
  const where = `${process.env.NEW ? 'a new session each' : 'one long-lived session'}, ${process.env.DIRECT === '1' ? 'each runtime served directly' : 'through the dev server’s proxy'}`;
  console.log(`${TURNS} turns each, ${where}; ms a turn, from the model request's first write to its answer's first read, on the runtime's first thread`);
  const fix = (ms) => ms.toFixed(2);
  for (const [name, system] of Object.entries(systems)) {
    const spent = waitWindows(await record(name, system));
    const preempted = spent.preempted.reduce((sum, [, ms]) => sum + ms, 0);
    const by = spent.preempted.slice(0, 3).map(([comm, ms]) => `${comm} ${fix(ms)}`).join(', ');
    console.log(`${name.padEnd(22)} ${spent.turns} turns: window ${fix(spent.window)}, CPU ${fix(spent.cpu)}, waiting for events ${fix(spent.waiting)}, blocked on the disk ${fix(spent.disk)}, asleep otherwise ${fix(spent.asleep)}, preempted ${fix(preempted)} (${by})`);
  }
}

/** Each system's cost a turn by symbol (perf) or by system call (strace), side by side. */
async function reportCosts() {
  const results = {};
  for (const [name, system] of Object.entries(systems)) results[name] = perTurn(await record(name, system));
  const [least, ours] = Object.values(results);
  const unit = syscalls ? 'calls a turn' : 'µs of runtime CPU a turn';
  const sum = (counts) => [...counts.values()].reduce((total, value) => total + value, 0);
  console.log(`${TURNS} turns each, ${process.env.NEW ? 'a new session each' : 'one long-lived session'}; ${unit}: the least ${sum(least).toFixed(1)}, ours ${sum(ours).toFixed(1)}`);
  const rows = [...new Set([...least.keys(), ...ours.keys()])].map((key) => [key, least.get(key) ?? 0, ours.get(key) ?? 0]);
  rows.sort((a, b) => Math.abs(b[2] - b[1]) - Math.abs(a[2] - a[1]));
  console.log(`${'the least'.padStart(10)} ${'ours'.padStart(10)} ${'ours more'.padStart(10)}  ${syscalls ? 'system call' : 'symbol'}`);
  for (const [key, a, b] of rows.slice(0, Number(process.env.TOP ?? 30))) console.log(`${a.toFixed(1).padStart(10)} ${b.toFixed(1).padStart(10)} ${(b - a).toFixed(1).padStart(10)}  ${key}`);
}

try {
  await (waits ? reportWindows() : reportCosts());
} finally {
  clearTimeout(guard);
  await upstream.close();
}
