#!/usr/bin/env node
// `npm run bench`: runs the benchmarks (in workerd, through the vitest pool), prints their table and
// writes bench/RESULTS.md. Bounded: the run stops itself after five minutes.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';

const child = spawn('npx', ['vitest', 'run', '--config', 'bench/vitest.bench.config.ts'], { stdio: ['ignore', 'pipe', 'inherit'] });
const timer = setTimeout(() => child.kill('SIGTERM'), 300_000);
let output = '';
child.stdout.on('data', (chunk) => {
  output += chunk;
  process.stdout.write(chunk);
});
const code = await new Promise((resolve) => child.on('close', resolve));
clearTimeout(timer);

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
writeFileSync(new URL('./RESULTS.md', import.meta.url), lines.join('\n'));
process.exit(code ?? 1);
