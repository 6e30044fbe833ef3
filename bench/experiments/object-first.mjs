// What a session object's first turn in a new isolate costs, and zod's share of it. In a deployment
// a session's object runs in an isolate of its own, whose first turn loads the session's code; here
// the Worker shares the isolate, so each run first has its Worker refuse a request, loading its own
// part, and then times two new sessions' turns (bench/cold-isolate.mjs): `object`, after a plain
// request, which loads no zod; `object-zod`, after a turn without messages, whose refusal loads zod
// and makes the turn request's schemas. The paired difference of the first turns is what zod's first
// use costs an object's first turn. `RUNS` (default 20) runs of each, alternating; CPU from /proc.
import { join, resolve } from 'node:path';
import { bundleOf, coldIsolate } from '../cold-isolate.mjs';
import { median, pairedMedian, round } from '../measure.mjs';
import { startBenchUpstream } from '../upstream.mjs';

const RUNS = Number(process.env.RUNS ?? 20);
const root = resolve(import.meta.dirname, '..', '..');
const bundle = { name: 'ours', ours: true, objects: { SESSIONS: 'SessionObject', USERS: 'UserObject' }, ...bundleOf({ config: join(root, 'wrangler.toml') }, root) };
const upstream = await startBenchUpstream();
const modes = ['object', 'object-zod'];
const results = new Map(modes.map((mode) => [mode, []]));
for (let run = 0; run < RUNS; run += 1) {
  for (const mode of run % 2 === 0 ? modes : [...modes].reverse()) results.get(mode).push(await coldIsolate(bundle, run, mode, upstream));
}
await upstream.close();
for (const mode of modes) {
  const rows = results.get(mode);
  console.log(`${mode}: first turn ${round(median(rows.map((row) => row.firstTurnMs)))} ms, a later new session's turn ${round(median(rows.map((row) => row.laterTurnMs)))} ms (${RUNS} runs)`);
}
const [plain, zod] = modes.map((mode) => results.get(mode).map((row) => row.firstTurnMs));
console.log(`zod's first use, paired (object less object-zod): ${round(pairedMedian(plain, zod))} ms`);
