// A woken session's turn in a runtime already running (bench/experiments/README.md): the object
// evicted (its `ctx.abort()`, as an idle object is let go), then woken by the session's next turn,
// which reads its kept messages back before it calls the model (each one its isolate parsed before
// taken as it was: docs/decisions.md, 46; the stand-in's turns repeat two texts, so after the first
// round every message is one its isolate read). Each build runs in
// one runtime for the whole experiment, its bundle as `wrangler deploy --dry-run` makes it, with a
// module in front that gives the session's object an `evict` method and the Worker a route to it.
// Each runtime gives sessions of `SIZES` turns (default 5,500,1500: twice as many messages) their
// turns first, with the stand-in model; then `ROUNDS` rounds (default 15), each evicting a session
// and timing its next turn, wall clock (request to body end) and runtime CPU (/proc), builds and
// sizes alternating. With `BEFORE=<checkout>` (as cold-pair.mjs), both builds, and the medians of
// their paired differences. `SPLIT=1` then splits a woken turn of the smallest session, for each
// build: a session's `GET` kept in memory and woken, the turn after a woken `GET`, a turn kept in
// memory, and a bare object's call kept in memory and woken (one SQLite table, its alarm read as it
// wakes, as ours is): the platform's own cost of a wake.
import { join, resolve } from 'node:path';
import { bundleOf, freshRuntime, postTurn, STAND_IN_TURN } from '../cold-isolate.mjs';
import { wallAndCpu, wallAndCpuMedians, wallAndCpuPaired } from '../measure.mjs';
import { serviceVars, startBenchUpstream } from '../upstream.mjs';

const SIZES = (process.env.SIZES ?? '5,500,1500').split(',').map(Number);
const ROUNDS = Number(process.env.ROUNDS ?? 15);
const roots = { ours: resolve(import.meta.dirname, '..', '..'), ...(process.env.BEFORE ? { 'ours before': resolve(process.env.BEFORE) } : {}) };
const upstream = await startBenchUpstream();

/**
 * The Worker in front: `/__evict/<session>` evicts the local user's session object, `/__bare` calls
 * the bare object and `/__bare-evict` evicts it; the rest goes to the bundle's.
 */
const FRONT = `import { DurableObject } from 'cloudflare:workers';
import worker, { SessionObject as Session, UserObject } from './index.js';
export { UserObject };
export class SessionObject extends Session { evict() { this.ctx.abort('evicted by the experiment'); } }
export class Bare extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    ctx.blockConcurrencyWhile(async () => {
      this.alarmAt = await ctx.storage.getAlarm();
      ctx.storage.sql.exec('CREATE TABLE IF NOT EXISTS t (k INTEGER PRIMARY KEY, v TEXT)');
    });
  }
  call() {
    const { sql } = this.ctx.storage;
    sql.exec('INSERT INTO t (v) VALUES (?)', 'a turn of a hundred characters'.padEnd(100));
    return sql.exec('SELECT COUNT(*) AS n FROM t').one().n;
  }
  evict() { this.ctx.abort('evicted by the experiment'); }
}
export default {
  async fetch(request, env, ctx) {
    const { pathname } = new URL(request.url);
    const bare = env.BARE.getByName('bare');
    if (pathname === '/__bare') return new Response(String(await bare.call()));
    if (pathname === '/__bare-evict') await bare.evict().catch(() => {});
    else if (pathname.startsWith('/__evict/')) await env.SESSIONS.getByName(JSON.stringify(['local', pathname.slice(9)])).evict().catch(() => {});
    else return worker.fetch(request, env, ctx);
    return new Response(null, { status: 204 });
  },
};`;

function runtimeOf(root) {
  const bundle = { objects: { SESSIONS: 'SessionObject', USERS: 'UserObject', BARE: 'Bare' }, ...bundleOf({ config: join(root, 'wrangler.toml') }, root) };
  return freshRuntime(bundle, serviceVars(upstream.url, 20_000), { front: FRONT });
}

const pause = (ms) => new Promise((done) => setTimeout(done, ms));
const builds = Object.entries(roots).map(([name, root]) => ({ name, runtime: runtimeOf(root) }));
for (const { runtime } of builds) {
  await runtime.ready;
  for (const size of SIZES) for (let turn = 0; turn < size; turn += 1) await postTurn(runtime, `woken-${size}`, STAND_IN_TURN);
}

const get = async (runtime, path) => void (await (await runtime.dispatchFetch(`http://localhost${path}`)).arrayBuffer());
const evict = async (runtime, sessionId) => {
  await get(runtime, `/__evict/${sessionId}`);
  await pause(20);
};

/** `[wall ms, CPU ms]` by build and size. */
const results = new Map(builds.map(({ name }) => [name, new Map(SIZES.map((size) => [size, []]))]));
for (let round_ = 0; round_ < ROUNDS; round_ += 1) {
  for (const size of SIZES) {
    for (const { name, runtime } of round_ % 2 === 0 ? builds : [...builds].reverse()) {
      const sessionId = `woken-${size}`;
      await evict(runtime, sessionId);
      results.get(name).get(size).push(await wallAndCpu(() => postTurn(runtime, sessionId, STAND_IN_TURN)));
      await pause(20);
    }
  }
}
/** `SPLIT=1`: a woken turn's parts, each step `[wall ms, CPU ms]` by build. */
const STEPS = ['get kept', 'get woken', 'turn after a woken get', 'turn kept', 'bare kept', 'bare woken'];
const split = new Map(builds.map(({ name }) => [name, new Map(STEPS.map((step) => [step, []]))]));
for (let round_ = 0; process.env.SPLIT === '1' && round_ < ROUNDS; round_ += 1) {
  for (const { name, runtime } of round_ % 2 === 0 ? builds : [...builds].reverse()) {
    const sessionId = `woken-${SIZES[0]}`;
    const step = async (label, work) => {
      split.get(name).get(label).push(await wallAndCpu(work));
      await pause(20);
    };
    await step('get kept', () => get(runtime, `/sessions/${sessionId}`));
    await evict(runtime, sessionId);
    await step('get woken', () => get(runtime, `/sessions/${sessionId}`));
    await step('turn after a woken get', () => postTurn(runtime, sessionId, STAND_IN_TURN));
    await step('turn kept', () => postTurn(runtime, sessionId, STAND_IN_TURN));
    await step('bare kept', () => get(runtime, '/__bare'));
    await get(runtime, '/__bare-evict');
    await pause(20);
    await step('bare woken', () => get(runtime, '/__bare'));
  }
}
for (const { runtime } of builds) await runtime.dispose();
await upstream.close();

for (const { name } of process.env.SPLIT === '1' ? builds : []) {
  console.log(`${name}, a session of ${SIZES[0]} turns and more, split (${ROUNDS} rounds):`);
  for (const step of STEPS) console.log(`  ${step}: ${wallAndCpuMedians(split.get(name).get(step))}`);
}

for (const size of SIZES) {
  const line = builds.map(({ name }) => `${name} ${wallAndCpuMedians(results.get(name).get(size))}`).join('; ');
  const [after, before] = builds.map(({ name }) => results.get(name).get(size));
  console.log(`a session of ${size} turns, woken: ${line}${wallAndCpuPaired(after, before)} (${ROUNDS} rounds)`);
}
