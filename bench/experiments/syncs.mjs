#!/usr/bin/env node
// What each turn syncs to disk, and on which thread (bench/experiments/README.md): `arrive.mjs` run
// for one kind at a time under `strace -f`, every `fsync`/`fdatasync` of the systems' runtimes
// counted by the file it synced (a Durable Object's database, its WAL, its journal, its directory,
// workerd's alarm database) and divided by the turns (`ROUNDS`, 100). Each run's first databases,
// made once, are in the counts too (about 0.2–0.3 a turn at 100 rounds). `KINDS` (';'-separated,
// `arrive.mjs`'s names, its new sessions' among them): by default the least a turn does and ours, on
// a long-lived session and a new one. Needs `strace`. Loopback only; bounded by `arrive.mjs`.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROUNDS = Number(process.env.ROUNDS ?? 100);
const kinds = (process.env.KINDS ?? 'the least a turn does;ours;the least a turn does, new session;ours, new session').split(';');
try {
  execFileSync('strace', ['-V'], { stdio: 'ignore' });
} catch {
  console.error('syncs: needs strace (Debian: apt-get install strace)');
  process.exit(2);
}

/** The file an `fsync` synced, as `<object class>: <what>`. */
function classify(path) {
  const where = /\/do\/(?:[^/]*-)?([A-Za-z]+)\/([^/]+)$/.exec(path);
  if (!where) return path.includes('/cache/') ? 'the runtime’s cache' : path ? 'other' : 'a file this thread did not open';
  const [, owner, file] = where;
  if (file === '.') return `${owner}: its directory (a new database)`;
  // One a turn on a new session, none on a long-lived one: the alarm its timer sets (workerd keeps alarms here).
  if (file.startsWith('metadata.sqlite')) return `${owner}: metadata.sqlite (workerd’s own: the alarms)`;
  if (file.endsWith('.sqlite-wal')) return `${owner}: WAL (a commit)`;
  if (file.endsWith('.sqlite-journal')) return `${owner}: journal (a new database)`;
  if (file.endsWith('.sqlite')) return `${owner}: database file (a new database)`;
  return `${owner}: ${file}`;
}

for (const kind of kinds) {
  const dir = mkdtempSync(join(tmpdir(), 'syncs-'));
  const run = spawnSync('strace', ['-f', '-ff', '-qq', '-e', 'trace=execve,openat,fsync,fdatasync,close', '-o', join(dir, 't'), process.execPath, 'bench/experiments/arrive.mjs'], {
    env: { ...process.env, ROUNDS: String(ROUNDS), ONLY: kind, NEW: '1' },
    encoding: 'utf8',
  });
  if (run.status !== 0) {
    console.error(`syncs: arrive.mjs failed for "${kind}"\n${run.stderr}`);
    process.exit(1);
  }
  const counts = new Map();
  let total = 0;
  let onFirstThread = 0;
  // One file per thread (`-ff`); a process's first thread is the one that ran its `execve`.
  for (const name of readdirSync(dir)) {
    const lines = readFileSync(join(dir, name), 'utf8').split('\n');
    const first = lines.some((line) => line.startsWith('execve('));
    const paths = new Map();
    for (const line of lines) {
      const opened = /^openat\((AT_FDCWD|\d+), "([^"]+)".*= (\d+)$/.exec(line);
      if (opened) {
        const [, at, path, fd] = opened;
        paths.set(fd, path.startsWith('/') ? path : `${paths.get(at) ?? '?'}/${path}`);
        continue;
      }
      const closed = /^close\((\d+)\)/.exec(line);
      if (closed) {
        paths.delete(closed[1]);
        continue;
      }
      const synced = /^f(?:data)?sync\((\d+)\)/.exec(line);
      if (!synced) continue;
      const what = classify(paths.get(synced[1]) ?? '');
      counts.set(what, (counts.get(what) ?? 0) + 1);
      total++;
      if (first) onFirstThread++;
    }
  }
  rmSync(dir, { recursive: true, force: true });
  // `arrive.mjs` starts every system whatever it runs: what the others' starts synced is told apart.
  const own = kind.startsWith('ours') ? ['SessionObject', 'UserObject'] : kind.startsWith('the least') ? ['Session'] : ['Reader'];
  const mine = [...counts].filter(([what]) => own.includes(what.split(':')[0])).sort((a, b) => b[1] - a[1]);
  const theirs = total - mine.reduce((sum, [, count]) => sum + count, 0);
  const perTurn = (count) => (count / ROUNDS).toFixed(2).padStart(6);
  console.log(`${kind}: ${perTurn(total - theirs).trim()} fsyncs a turn by its own objects (of ${total} in ${ROUNDS} turns, ${onFirstThread} on a process’s first thread)`);
  for (const [what, count] of mine) console.log(`  ${perTurn(count)}  ${what}`);
  console.log(`  ${perTurn(theirs)}  the other systems' start and the runtime's cache`);
}
