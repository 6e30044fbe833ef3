#!/usr/bin/env node
// A bounded load run on loopback: starts `wrangler dev` (demo model, no rate limit), runs SESSIONS
// sessions at once, TURNS turns each (every turn runs the calculator tool), then counts every stored
// message. A share of the sessions (DOUBLE) double-text: each of their turns runs a tool for a while
// (count_to), and a second message follows while it runs, with each policy in turn (enqueue, steer,
// interrupt, reject); every message the server accepted must be stored once. Another share
// (BACKGROUND) sends its turns with `Prefer: respond-async` and waits for none of them. Every turn's end
// goes to a webhook receiver here (which refuses one first attempt in five, so that retries happen):
// each turn's webhook must arrive, verified by the published Standard Webhooks verifier, exactly once
// once retries are deduplicated by `webhook-id`, none lost. Prints p50/p99 latency (retries
// included); exits non-zero on any 5xx, lost or duplicated message or webhook.
// Usage: npm run load [-- --sessions 200 --turns 5 --double 0.25 --background 0.2]
import { startDevServer } from './dev-server.mjs';
import { startReceiver } from './webhook-receiver.mjs';

const args = Object.fromEntries(process.argv.slice(2).join(' ').split('--').filter(Boolean).map((pair) => pair.trim().split(/\s+/)));
const SESSIONS = Number(args.sessions ?? 200);
const TURNS = Number(args.turns ?? 5);
const DOUBLE = Number(args.double ?? 0.25);
const BACKGROUND = Number(args.background ?? 0.2);
const POLICIES = ['enqueue', 'steer', 'interrupt', 'reject'];
const DEADLINE_MS = 60_000;

const deadline = setTimeout(() => {
  console.error(`load: stopped at the ${DEADLINE_MS / 1000} s bound`);
  process.exit(3);
}, DEADLINE_MS);
const SECRET = `whsec_${Buffer.from('the load run webhook secret, 32+b').toString('base64')}`;
const receiver = await startReceiver({ secret: SECRET, refuseFirst: (webhookId) => webhookId.charCodeAt(webhookId.length - 1) % 5 === 0, quiet: true });
const { base, log, stop } = await startDevServer({
  vars: { RATE_LIMIT_PER_MINUTE: '0', WEBHOOK_URL: receiver.url, WEBHOOK_SECRET: SECRET, WEBHOOK_RETRY_BASE_MS: '200' },
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
async function send(id, key, body, headers = {}) {
  const t0 = performance.now();
  let response;
  let text = '';
  for (let attempt = 0; attempt < 4; attempt++) {
    response = await fetch(`${base}/sessions/${id}/turns`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': key, ...headers },
      body: JSON.stringify(body),
    });
    text = await response.text();
    if (response.status !== 503 || !text.startsWith('Your worker restarted mid-request')) break;
    proxyResets++;
    await new Promise((resolve) => setTimeout(resolve, 250 * (attempt + 1)));
  }
  if (response.status >= 500 && !firstFailure) firstFailure = `${response.status} ${text.slice(0, 300)}`;
  latencies.push(performance.now() - t0);
  count(response.status);
  return { status: response.status, text };
}

/** The turns whose webhooks must arrive: those of the plain and the background sessions (with their session). */
const turnIds = new Set();
const sessionOf = new Map();

function follow(turnId, sessionId) {
  turnIds.add(turnId);
  sessionOf.set(turnId, sessionId);
}

async function session(index) {
  if (index < SESSIONS * DOUBLE) return doubleTexting(index);
  if (index < SESSIONS * (DOUBLE + BACKGROUND)) return background(index);
  const id = `${run}-${index}`;
  for (let turn = 0; turn < TURNS; turn++) {
    const { status, text } = await send(id, `${id}-${turn}`, { messages: [{ role: 'user', content: `calculate ${index}*${turn}` }] });
    if (status === 200) follow(JSON.parse(text).turnId, id);
  }
}

/** Every turn sent at once without waiting (`respond-async`, queued behind each other), then nothing followed. */
async function background(index) {
  const id = `${run}-${index}`;
  for (let turn = 0; turn < TURNS; turn++) {
    const body = { messages: [{ role: 'user', content: `calculate ${index}*${turn}` }], ifBusy: 'enqueue' };
    const { status, text } = await send(id, `${id}-${turn}`, body, { prefer: 'respond-async' });
    if (status === 202) follow(JSON.parse(text).turnId, id);
  }
  await idle(id);
}

/** What each double-texting session's server accepted (200 or 202): each must be stored once. */
const accepted = new Map();

async function post(id, body, key) {
  return (await send(id, key, body)).status;
}

async function doubleTexting(index) {
  const id = `${run}-${index}`;
  const expected = [];
  accepted.set(index, expected);
  for (let turn = 0; turn < TURNS; turn++) {
    const first = `count to 3; m${index}-${turn}`;
    const running = post(id, { messages: [{ role: 'user', content: first }] }, `${id}-${turn}-a`);
    await new Promise((resolve) => setTimeout(resolve, 60));
    const second = `second ${index}-${turn}`;
    const status = await post(id, { messages: [{ role: 'user', content: second }], ifBusy: POLICIES[turn % POLICIES.length] }, `${id}-${turn}-b`);
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
// Every turn's webhook, exactly once after deduplication by webhook-id; the retries settle within seconds.
let hooks = receiver.summary(turnIds);
for (let waited = 0; hooks.missing > 0 && waited < 20_000; waited += 250) {
  await new Promise((resolve) => setTimeout(resolve, 250));
  hooks = receiver.summary(turnIds);
}
clearTimeout(deadline);

latencies.sort((a, b) => a - b);
const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))].toFixed(1);
const errors5xx = [...statuses].filter(([status]) => status >= 500).reduce((sum, [, n]) => sum + n, 0);
console.log(`load: ${SESSIONS} sessions x ${TURNS} turns = ${latencies.length} turns in ${seconds.toFixed(1)} s (${(latencies.length / seconds).toFixed(0)} turns/s)`);
console.log(`latency: p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${latencies.at(-1).toFixed(1)} ms`);
console.log(`statuses: ${[...statuses].map(([s, n]) => `${s}: ${n}`).join(', ')}; 5xx: ${errors5xx}; dev-proxy resets retried: ${proxyResets}`);
console.log(`stored: lost ${lost}, duplicated ${duplicated}; ${accepted.size} sessions double-texted (${POLICIES.join(', ')} in turn)`);
console.log(
  `webhooks: ${turnIds.size} turns followed, ${hooks.deliveredOnce} delivered once; lost ${hooks.missing}, one turn under two ids ${hooks.twice}, unverified ${hooks.unverified}; ${hooks.attempts} attempts, ${hooks.refused} refused on purpose and retried`,
);
if (firstFailure) console.log(`first failure: ${firstFailure}`);
for (const turnId of hooks.missingIds.slice(0, 3)) {
  const sessionId = sessionOf.get(turnId);
  const turn = await (await fetch(`${base}/sessions/${sessionId}/turns/${turnId}`)).json();
  const { deliveries } = await (await fetch(`${base}/sessions/${sessionId}/deliveries`)).json();
  console.log(`no webhook for ${turnId} (${sessionId}): ${turn.status} ${turn.stopReason ?? ''}; deliveries ${JSON.stringify(deliveries.filter((delivery) => delivery.turnId === turnId))}`);
}
if (process.env.LOAD_LOG) (await import('node:fs')).writeFileSync(process.env.LOAD_LOG, log());
stop();
receiver.close();
const hooksOk = hooks.missing === 0 && hooks.twice === 0 && hooks.unverified === 0;
process.exit(errors5xx === 0 && lost === 0 && duplicated === 0 && hooksOk ? 0 : 1);
