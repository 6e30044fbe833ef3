// Two builds of ours, paired in new isolates: this checkout and `BEFORE=<checkout>` (a `git
// worktree` of another commit, its `node_modules` linked and its assets built, as for `npm run
// bench:compare`). Each run starts a fresh runtime for each build, in alternating order, and
// reads its CPU from /proc (bench/cold-isolate.mjs): to get ready, then by each of `MODES`
// (`refused`: a first request the Worker refuses alone; `plain`: a plain turn request it checks, then
// refuses for its model, as a Worker isolate's first turn is checked; `socket`: a chat socket's upgrade
// its Worker refuses for its subprotocol, once its route is loaded; `model`: a first turn with the
// stand-in model and a later new session's turn; `object`: the same once its Worker refused a plain
// request, the first turn then mostly its object's; `object-zod`: the same once its Worker refused a
// turn without messages, which loads zod; `demo`: the same with the demo model). Prints each
// build's medians and the median of the paired differences (this checkout less `BEFORE`), which a
// run's drift moves far less than either median. `RUNS` (default 30) runs of each mode.
import { join, resolve } from 'node:path';
import { bundleOf, coldIsolate } from '../cold-isolate.mjs';
import { median, pairedMedian, round } from '../measure.mjs';
import { startBenchUpstream } from '../upstream.mjs';

const RUNS = Number(process.env.RUNS ?? 30);
const MODES = (process.env.MODES ?? 'refused').split(',');
if (!process.env.BEFORE) throw new Error('BEFORE=<checkout of the commit to compare against> is required');
const roots = { ours: resolve(import.meta.dirname, '..', '..'), 'ours before': resolve(process.env.BEFORE) };
const objects = { SESSIONS: 'SessionObject', USERS: 'UserObject' };
const bundles = Object.entries(roots).map(([name, root]) => ({ name, ours: true, objects, ...bundleOf({ config: join(root, 'wrangler.toml') }, root) }));
for (const bundle of bundles) console.log(`${bundle.name}: ${round(bundle.gzipBytes / 1024, 1)} KiB gzip`);

const upstream = await startBenchUpstream();
const keys = { refused: ['readyMs', 'refusedMs'], plain: ['readyMs', 'refusedMs'], socket: ['readyMs', 'refusedMs'], model: ['readyMs', 'firstTurnMs', 'laterTurnMs'], object: ['firstTurnMs', 'laterTurnMs'], 'object-zod': ['firstTurnMs', 'laterTurnMs'], demo: ['readyMs', 'firstTurnMs', 'laterTurnMs'] };
for (const mode of MODES) {
  const results = new Map(bundles.map((bundle) => [bundle.name, []]));
  for (let run = 0; run < RUNS; run += 1) {
    for (const bundle of run % 2 === 0 ? bundles : [...bundles].reverse()) results.get(bundle.name).push(await coldIsolate(bundle, run, mode, upstream));
  }
  for (const key of keys[mode]) {
    const [after, before] = bundles.map((bundle) => results.get(bundle.name).map((result) => result[key]));
    console.log(`${mode} ${key}: ours ${round(median(after), 2)} ms, before ${round(median(before), 2)} ms, paired ${round(pairedMedian(after, before), 2)} ms (${RUNS} runs)`);
  }
}
await upstream.close();
