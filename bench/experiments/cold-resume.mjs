// A new isolate's first turn on a session that has turns (bench/experiments/README.md): the common
// cold path once a deployment has users, where an evicted session's object is woken by its next turn
// in a new runtime. Each run: a first runtime gives session `resume-<run>` `TURNS` turns (default 20)
// on storage kept in a directory, and is disposed of; a second, fresh runtime on the same storage
// then gets ready, and serves that session's next turn and one more; and, in a third fresh runtime
// on storage of its own (on disk too), a new session's first turn, as `npm run bench` measures it. CPU from /proc
// (bench/cold-isolate.mjs), the stand-in model. `RUNS` (default 20); with `BEFORE=<checkout>` (as
// cold-pair.mjs) both builds, alternating, and the medians of their paired differences.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { bundleOf, freshRuntime, postTurn, STAND_IN_TURN } from '../cold-isolate.mjs';
import { childRuntimeCpuMs, median, pairedMedian, round } from '../measure.mjs';
import { serviceVars, startBenchUpstream } from '../upstream.mjs';

const RUNS = Number(process.env.RUNS ?? 20);
const TURNS = Number(process.env.TURNS ?? 20);
const roots = { ours: resolve(import.meta.dirname, '..', '..'), ...(process.env.BEFORE ? { 'ours before': resolve(process.env.BEFORE) } : {}) };
const objects = { SESSIONS: 'SessionObject', USERS: 'UserObject' };
const bundles = Object.entries(roots).map(([name, root]) => ({ name, ours: true, objects, ...bundleOf({ config: join(root, 'wrangler.toml') }, root) }));
const upstream = await startBenchUpstream();
const vars = serviceVars(upstream.url, 20_000);

const turn = (runtime, sessionId) => postTurn(runtime, sessionId, STAND_IN_TURN);

/** The CPU of `work` in a fresh runtime of `bundle` (on `persist`, if given), after its ready. */
async function measured(bundle, persist, work) {
  const runtime = freshRuntime(bundle, vars, persist ? { durableObjectsPersist: persist } : {});
  const before = childRuntimeCpuMs();
  await runtime.ready;
  const ready = childRuntimeCpuMs();
  const marks = await work(runtime);
  await runtime.dispose();
  return { readyMs: ready - before, ...marks(ready) };
}

async function run(bundle, index) {
  const persist = mkdtempSync(join(tmpdir(), 'cold-resume-'));
  const sessionId = `resume-${index}`;
  try {
    const seeding = freshRuntime(bundle, vars, { durableObjectsPersist: persist });
    for (let n = 0; n < TURNS; n += 1) await turn(seeding, sessionId);
    await seeding.dispose();
    const resumed = await measured(bundle, persist, async (runtime) => {
      await turn(runtime, sessionId);
      const first = childRuntimeCpuMs();
      await turn(runtime, sessionId);
      const second = childRuntimeCpuMs();
      return (ready) => ({ resumedFirstMs: first - ready, resumedNextMs: second - first });
    });
    const fresh = await measured(bundle, mkdtempSync(join(persist, 'fresh-')), async (runtime) => {
      await turn(runtime, `fresh-${index}`);
      const first = childRuntimeCpuMs();
      return (ready) => ({ newFirstMs: first - ready });
    });
    return { ...resumed, newFirstMs: fresh.newFirstMs };
  } finally {
    rmSync(persist, { recursive: true, force: true });
  }
}

const results = new Map(bundles.map((bundle) => [bundle.name, []]));
for (let index = 0; index < RUNS; index += 1) {
  for (const bundle of index % 2 === 0 ? bundles : [...bundles].reverse()) results.get(bundle.name).push(await run(bundle, index));
}
for (const key of ['readyMs', 'resumedFirstMs', 'resumedNextMs', 'newFirstMs']) {
  const line = bundles.map((bundle) => `${bundle.name} ${round(median(results.get(bundle.name).map((result) => result[key])), 2)} ms`).join(', ');
  const [after, before] = bundles.map((bundle) => results.get(bundle.name).map((result) => result[key]));
  const paired = before ? `, paired ${round(pairedMedian(after, before), 2)} ms` : '';
  console.log(`${key}: ${line}${paired} (${RUNS} runs, ${TURNS} turns before)`);
}
await upstream.close();
