#!/usr/bin/env node
// A bounded load run on loopback: starts `wrangler dev` (demo model, no rate limit), runs SESSIONS
// sessions at once, TURNS turns each (every turn runs the calculator tool), then counts every stored
// message. A share of the sessions (DOUBLE) double-text: each of their turns runs a tool for a while
// (count_to), and a second message follows while it runs, with each policy in turn (enqueue, steer,
// interrupt, reject); every message the server accepted must be stored once. Prints p50/p99 latency
// (retries included); exits non-zero on any 5xx, lost or duplicated message.
// Usage: npm run load [-- --sessions 200 --turns 5 --double 0.25]
import { startDevServer } from './dev-server.mjs';

const args = Object.fromEntries(process.argv.slice(2).join(' ').split('--').filter(Boolean).map((pair) => pair.trim().split(/\s+/)));
const SESSIONS = Number(args.sessions ?? 200);
const TURNS = Number(args.turns ?? 5);
const DOUBLE = Number(args.double ?? 0.25);
const POLICIES = ['enqueue', 'steer', 'interrupt', 'reject'];
const DEADLINE_MS = 60_000;

const deadline = setTimeout(() => {
  console.error(`load: stopped at the ${DEADLINE_MS / 1000} s bound`);
  process.exit(3);
}, DEADLINE_MS);
const { base, log, stop } = await startDevServer({
  vars: { RATE_LIMIT_PER_MINUTE: '0' },
  extraArgs: process.env.LOAD_DEBUG ? ['--log-level', 'debug'] : [],
  timeoutMs: 30_000,
});

const run = `load-${Date.now().toString(36)}`;
const latencies = [];
let firstFailure;
let proxyResets = 0;
const statuses = new Map();
const count = (status) => statuses.set(status, (statuses.get(status) ?? 0) + 1);

// Each turn carries an Idempotency-Key, as a careful client's would: on the 503 that wrangler dev's
// own proxy answers when it loses its connection to the runtime under saturation ("Your worker
// restarted mid-request"), the client retries, and the key makes the retry safe (never a second run).
async function session(index) {
  if (index < SESSIONS * DOUBLE) return doubleTexting(index);
  const id = `${run}-${index}`;
  for (let turn = 0; turn < TURNS; turn++) {
    const t0 = performance.now();
    let response;
    let text = '';
    for (let attempt = 0; attempt < 4; attempt++) {
      response = await fetch(`${base}/sessions/${id}/turns`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': `${id}-${turn}` },
        body: JSON.stringify({ messages: [{ role: 'user', content: `calculate ${index}*${turn}` }] }),
      });
      text = await response.text();
      if (response.status !== 503 || !text.startsWith('Your worker restarted mid-request')) break;
      proxyResets++;
      await new Promise((resolve) => setTimeout(resolve, 250 * (attempt + 1)));
    }
    if (response.status >= 500 && !firstFailure) firstFailure = `${response.status} ${text.slice(0, 300)}`;
    latencies.push(performance.now() - t0);
    count(response.status);
  }
}

/** What each double-texting session's server accepted (200 or 202): each must be stored once. */
const accepted = new Map();

async function post(id, body) {
  const t0 = performance.now();
  const response = await fetch(`${base}/sessions/${id}/turns`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await response.text();
  if (response.status >= 500 && !firstFailure) firstFailure = `${response.status} ${text.slice(0, 300)}`;
  latencies.push(performance.now() - t0);
  count(response.status);
  return response.status;
}

async function doubleTexting(index) {
  const id = `${run}-${index}`;
  const expected = [];
  accepted.set(index, expected);
  for (let turn = 0; turn < TURNS; turn++) {
    const first = `count to 3; m${index}-${turn}`;
    const running = post(id, { messages: [{ role: 'user', content: first }] });
    await new Promise((resolve) => setTimeout(resolve, 60));
    const second = `second ${index}-${turn}`;
    const status = await post(id, { messages: [{ role: 'user', content: second }], ifBusy: POLICIES[turn % POLICIES.length] });
    if ((await running) < 300) expected.push(first);
    if (status === 200 || status === 202) expected.push(second);
    // The next turn starts once what was queued or steered has run.
    await idle(id);
  }
}

async function idle(id) {
  for (let tries = 0; tries < 200; tries++) {
    const view = await (await fetch(`${base}/sessions/${id}`)).json();
    if (!view.running && (view.queuedTurns ?? []).length === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const loadStart = performance.now();
await Promise.all(Array.from({ length: SESSIONS }, (_, index) => session(index)));
const seconds = (performance.now() - loadStart) / 1000;

// Every session must hold exactly its turns: user, assistant (tool call), tool, assistant; in order.
let lost = 0;
let duplicated = 0;
await Promise.all(
  Array.from({ length: SESSIONS }, async (_, index) => {
    const { messages } = await (await fetch(`${base}/sessions/${run}-${index}/messages?limit=500`)).json();
    const prompts = messages.filter((m) => m.role === 'user').map((m) => m.content);
    if (accepted.has(index)) {
      lost += accepted.get(index).filter((p) => !prompts.includes(p)).length;
      duplicated += prompts.length - new Set(prompts).size;
      return;
    }
    const expected = Array.from({ length: TURNS }, (_, turn) => `calculate ${index}*${turn}`);
    lost += expected.filter((p) => !prompts.includes(p)).length;
    duplicated += prompts.length - new Set(prompts).size;
    if (messages.length !== TURNS * 4) lost += Math.max(0, TURNS * 4 - messages.length);
  }),
);
clearTimeout(deadline);

latencies.sort((a, b) => a - b);
const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))].toFixed(1);
const errors5xx = [...statuses].filter(([status]) => status >= 500).reduce((sum, [, n]) => sum + n, 0);
console.log(`load: ${SESSIONS} sessions x ${TURNS} turns = ${latencies.length} turns in ${seconds.toFixed(1)} s (${(latencies.length / seconds).toFixed(0)} turns/s)`);
console.log(`latency: p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${latencies.at(-1).toFixed(1)} ms`);
console.log(`statuses: ${[...statuses].map(([s, n]) => `${s}: ${n}`).join(', ')}; 5xx: ${errors5xx}; dev-proxy resets retried: ${proxyResets}`);
console.log(`stored: lost ${lost}, duplicated ${duplicated}; ${accepted.size} sessions double-texted (${POLICIES.join(', ')} in turn)`);
if (firstFailure) console.log(`first failure: ${firstFailure}`);
if (process.env.LOAD_LOG) (await import('node:fs')).writeFileSync(process.env.LOAD_LOG, log());
stop();
process.exit(errors5xx === 0 && lost === 0 && duplicated === 0 ? 0 : 1);
