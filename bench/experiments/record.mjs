#!/usr/bin/env node
// Every `npm run bench` on record, read back from the history of `bench/RESULTS.md`
// (bench/experiments/README.md): for each committed run that measured the least a turn does beside
// ours, the three ratios issue 24 sets targets for, for ours, for the least a turn does, for the
// least served as ours is (where the run measured it), ours over that least, and for the floors
// below any design that keeps its turns (one row stored before the model request; the answer read
// and nothing kept); then how many runs met each target. One run's ratios move by up to a quarter
// with nothing changed (bench/PROFILE.md), so whether a target is within a design's reach is read
// from all runs, not from one. Reads git only; needs the clone's history.
import { execFileSync } from 'node:child_process';

const FILE = 'bench/RESULTS.md';
const git = (...args) => execFileSync('git', args, { encoding: 'utf8', maxBuffer: 64 << 20 });

/** The figure column of the targets table's row whose label starts with `label`, split at `;`. */
function figures(text, label) {
  const row = text.split('\n').find((line) => line.startsWith(`| ${label}`));
  if (!row) return undefined;
  return row.split('|')[3].split(';').map((cell) => Number.parseFloat(cell));
}

/** The rows of the first-event table, which tell one run from a copy of it in a later commit. */
const runOf = (text) => text.split('\n').filter((line) => /^\| (limit through a DO|ours \()/.test(line)).join('\n');

const runs = [];
const seen = new Set();
for (const line of git('log', '--reverse', '--format=%h%x09%ad', '--date=short', '--', FILE).trim().split('\n')) {
  const [commit, date] = line.split('\t');
  const text = git('show', `${commit}:${FILE}`);
  const least = figures(text, '(for reference) the least a turn does, over the limit through a DO');
  if (!least) continue;
  const key = runOf(text);
  if (seen.has(key)) continue;
  seen.add(key);
  runs.push({
    commit,
    date,
    ours: [figures(text, 'first text event, long-lived session')[0], figures(text, 'first text event, new session')[0], figures(text, 'throughput of a 20,000-delta answer')[0]],
    least: [least[0], least[1], figures(text, '(for reference) throughput of the least a turn does')?.[0]],
    served: figures(text, '(for reference) the least a turn does served as ours is'),
    // Ours' first text event over that least's, in the same run: ours' own work beyond the least a turn does.
    overServed: figures(text, '(for reference) first text event over the least a turn does served as ours is'),
    // The floors that store one row before the model request, and that read the answer and keep nothing.
    floors: [...(figures(text, '(for reference) the DO that stores, then reads, over') ?? [undefined, undefined]), figures(text, '(for reference) throughput of the DO that reads the stream')?.[0]],
  });
}

const TARGETS = [
  { name: 'first text event, long-lived, over the limit through a DO', met: (x) => x <= 1.1, wanted: '≤ 1.10x' },
  { name: 'first text event, new session, over the limit through a new DO', met: (x) => x <= 1.15, wanted: '≤ 1.15x' },
  { name: 'throughput, of the limit through a DO', met: (x) => x >= 0.9, wanted: '≥ 0.90x' },
];
const cell = (values) => (values ? values.map((value) => (value === undefined || Number.isNaN(value) ? '–' : `${value}x`)).join(' / ') : '');

console.log('| run (commit of RESULTS.md) | date | ours: long-lived / new / throughput | the least a turn does | served as ours is: long-lived / new | ours over the least served as ours is | the floors: stores, then reads (long-lived / new) / reads the stream |');
console.log('| --- | --- | --- | --- | --- | --- | --- |');
for (const run of runs) console.log(`| \`${run.commit}\` | ${run.date} | ${cell(run.ours)} | ${cell(run.least)} | ${cell(run.served)} | ${cell(run.overServed)} | ${cell(run.floors)} |`);
console.log();
console.log('| target | wanted | runs | ours met it | the least met it | the least served as ours is met it | the floor met it (stores, then reads; reads the stream) |');
console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: |');
TARGETS.forEach((target, at) => {
  const count = (pick) => {
    const values = runs.map(pick).filter((value) => value !== undefined && !Number.isNaN(value));
    if (values.length === 0) return '–';
    const range = `${Math.min(...values)}–${Math.max(...values)}x`;
    return `${values.filter(target.met).length} of ${values.length} (${range})`;
  };
  const served = at < 2 ? count((run) => run.served?.[at]) : '–';
  console.log(`| ${target.name} | ${target.wanted} | ${runs.length} | ${count((run) => run.ours[at])} | ${count((run) => run.least[at])} | ${served} | ${count((run) => run.floors[at])} |`);
});
