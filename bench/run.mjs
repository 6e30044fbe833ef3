#!/usr/bin/env node
// `npm run bench`: runs the benchmarks (in workerd through the vitest pool, and the platform-free
// core in Node), prints their figures and writes bench/RESULTS.md. Bounded: each part stops itself
// after a few minutes.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

async function run(command, args, limitMs) {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const timer = setTimeout(() => child.kill('SIGTERM'), limitMs);
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
    process.stdout.write(chunk);
  });
  const code = await new Promise((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  return { code, output };
}

const workerd = await run('npx', ['vitest', 'run', '--config', 'bench/vitest.bench.config.ts'], 240_000);
const bundle = join(mkdtempSync(join(tmpdir(), 'bench-')), 'cpu-per-event.mjs');
const built = await run('npx', ['esbuild', 'bench/cpu-per-event.ts', '--bundle', '--platform=node', '--format=esm', `--outfile=${bundle}`, '--log-level=warning'], 60_000);
const node = built.code === 0 ? await run('node', [bundle], 60_000) : built;
const output = workerd.output + node.output;
const code = workerd.code || node.code;

const results = [...output.matchAll(/BENCH (\{.*\})/g)].map((match) => JSON.parse(match[1]));
const hydration = results.find((result) => result.name === 'context-hydration');
const lines = ['# Benchmark results', '', `Measured by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}, on the 2-core development machine, in workerd (the vitest pool, real Durable Object SQLite storage).`, ''];
if (hydration) {
  lines.push(
    '## Bounded hydration: turn cost against stored history',
    '',
    'Two sessions, long since compacted (the latest summary covers all but the last 40 messages); turns',
    'alternate between them, demo model, JSON mode; each figure is the median of 15 turns. "Loaded" is',
    'what a turn reads into memory: the messages after the latest summary.',
    '',
    '| stored messages | turn latency (median) | messages loaded | bytes loaded |',
    '| ---: | ---: | ---: | ---: |',
    ...hydration.rows.map((row) => `| ${row.stored.toLocaleString('en')} | ${row.turnMs} ms | ${row.loaded.messages} | ${row.loaded.bytes.toLocaleString('en')} |`),
    '',
    `Latency ratio, 50,000 over 500: **${hydration.latencyRatio}**.`,
    '',
    'Timing note: inside workerd the clock advances only at I/O, so latencies are whole milliseconds',
    'and a turn\'s CPU time between two I/O events is not resolved finer than that.',
    '',
  );
  console.log(`\ncontext hydration: ${hydration.rows.map((row) => `${row.stored} stored -> ${row.turnMs} ms, ${row.loaded.messages} loaded`).join('; ')}; ratio ${hydration.latencyRatio}`);
}
const cpu = results.find((result) => result.name === 'cpu-per-event');
if (cpu) {
  lines.push(
    '## CPU per event of the core, in Node',
    '',
    `The agent loop on a scripted provider streaming ${cpu.deltas.toLocaleString('en')} text deltas, alone and with each encoder`,
    `listening (its framing included); \`process.cpuUsage\`, median of ${cpu.runs} runs, systems alternating, Node ${cpu.node}.`,
    '',
    '| system | CPU per internal event |',
    '| --- | ---: |',
    ...cpu.rows.map((row) => `| ${row.name} | ${row.microsecondsPerEvent} µs |`),
    '',
  );
  console.log(`cpu per event: ${cpu.rows.map((row) => `${row.name} ${row.microsecondsPerEvent} µs`).join('; ')}`);
}
writeFileSync(new URL('./RESULTS.md', import.meta.url), lines.join('\n'));
process.exit(code ?? 1);
