// A new isolate of a system, as `npm run bench` (bench/startup.mjs) and the paired experiment
// (bench/experiments/cold-pair.mjs) measure it: the bundle `wrangler deploy --dry-run` makes, run
// in a fresh runtime with no profiler, its CPU read from /proc.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Miniflare } from 'miniflare';
import { dryRun } from '../scripts/check-upload.mjs';
import { childRuntimeCpuMs } from './measure.mjs';
import { serviceVars } from './upstream.mjs';

/**
 * The upload `wrangler deploy --dry-run` makes: the Worker's code (its bytes and gzip), and the
 * whole upload as a file (`--outfile`), which `wrangler check startup` runs. `outdir` holds the code
 * and its source map.
 */
export function bundleOf(system, root, wrangler = join(root, 'node_modules/.bin/wrangler')) {
  const outdir = mkdtempSync(join(tmpdir(), 'bench-bundle-'));
  const upload = join(outdir, 'worker.bundle');
  const { code, bytes, gzipBytes } = dryRun({ root, outdir, config: system.config, outfile: upload, wrangler, stderr: 'ignore' });
  return { outdir, upload, code: code.toString('utf8'), bytes, gzipBytes };
}

/**
 * A new isolate (the bundle in a fresh runtime, no profiler): its CPU to get ready (the runtime's own
 * start included: the floor's figure says how much that is); then, by `mode`, the first turn of a new
 * session and the turn of another new session after it (`demo`: ours with its demo model; `model`:
 * the stand-in upstream as the model, a streamed turn), or a first request its Worker refuses alone
 * (`refused`: a turn without messages, a 400 before any object; `plain`: a plain turn request, checked
 * and then refused for its model, a 400 before any object, as a Worker isolate's first turn would
 * be checked; `socket`: a chat socket's upgrade, refused for its subprotocol once its route is
 * loaded; `object` and `object-zod`: the two turns of `model`, after a first request the Worker
 * refuses, so that the first turn's figure is mostly its object's, as in a deployment whose objects
 * run in isolates of their own: `object` after a plain request, which loads no zod; `object-zod`
 * after a turn without messages, whose refusal loads zod and makes the turn request's schemas, so
 * that the difference between the two is what zod's first use costs an object's first turn).
 * `bundle.ours`: this service (its settings, its tools by default), where the least a turn
 * does is asked for them (`?tools`).
 */
export async function coldIsolate(bundle, run, mode, upstream) {
  const runtime = freshRuntime(bundle, mode === 'demo' ? {} : bundle.ours ? serviceVars(upstream.url, 20_000) : { UPSTREAM_URL: upstream.url });
  const before = childRuntimeCpuMs();
  await runtime.ready;
  const ready = childRuntimeCpuMs();
  const post = async (sessionId, body, status) => {
    await postTurn(runtime, sessionId, body, status, bundle.ours ? '' : '?tools');
    return childRuntimeCpuMs();
  };
  const turn = (sessionId) => post(sessionId, mode === 'demo' ? { messages: STAND_IN_TURN.messages } : STAND_IN_TURN, 200);
  const result = { readyMs: ready - before };
  if (mode === 'refused') result.refusedMs = (await post(`cold-${run}`, { ...STAND_IN_TURN, messages: [] }, 400)) - ready;
  else if (mode === 'plain') result.refusedMs = (await post(`cold-${run}`, { ...STAND_IN_TURN, model: 'nope:none' }, 400)) - ready;
  else if (mode === 'socket') {
    const response = await runtime.dispatchFetch(`http://localhost/sessions/cold-${run}/ws`, { headers: { upgrade: 'websocket', 'sec-websocket-protocol': 'nope' } });
    if (response.status !== 400) throw new Error(`cold isolate, ${bundle.name}: socket ${response.status}`);
    await response.text();
    result.refusedMs = childRuntimeCpuMs() - ready;
  }
  else if (mode) {
    const warmed = WORKER_FIRST[mode];
    const from = warmed ? await post(`cold-${run}-w`, warmed, 400) : ready;
    const first = await turn(`cold-${run}-a`);
    result.firstTurnMs = first - from;
    result.laterTurnMs = (await turn(`cold-${run}-b`)) - first;
  }
  await runtime.dispose();
  return result;
}

/** A streamed turn with the stand-in model (`bench/upstream.mjs`), as the cold measurements send it. */
export const STAND_IN_TURN = { stream: 'delta', model: 'openai:deltas-5', messages: [{ role: 'user', content: 'hello' }] };

/** The request a mode's Worker refuses before its first turn (`coldIsolate`). */
export const WORKER_FIRST = {
  object: { ...STAND_IN_TURN, model: 'nope:none' },
  'object-zod': { ...STAND_IN_TURN, messages: [] },
};

/** A turn request to a runtime's Worker (`query` after its path), read to its end; throws unless answered `status`. */
export async function postTurn(runtime, sessionId, body, status = 200, query = '') {
  const response = await runtime.dispatchFetch(`http://localhost/sessions/${sessionId}/turns${query}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await response.text();
  if (response.status !== status) throw new Error(`${sessionId}: ${response.status} ${text}`);
}

/**
 * A fresh runtime with the bundle (`bundleOf`'s, with its Durable Object classes by binding,
 * `objects`) and `bindings`; `front`, a module in front of the bundle (it imports `./index.js`, and is
 * the Worker and the objects' classes the runtime sees); `options` adds Miniflare's own (an
 * `inspectorPort`).
 */
export function freshRuntime(bundle, bindings, { front, ...options } = {}) {
  return new Miniflare({
    modules: [
      ...(front ? [{ type: 'ESModule', path: '/bundle/front.js', contents: front }] : []),
      { type: 'ESModule', path: '/bundle/index.js', contents: bundle.code },
    ],
    modulesRoot: '/',
    compatibilityDate: '2026-04-20',
    compatibilityFlags: ['nodejs_compat', 'enable_request_signal'],
    durableObjects: Object.fromEntries(Object.entries(bundle.objects).map(([binding, className]) => [binding, { className, useSQLite: true }])),
    bindings,
    ...options,
  });
}
