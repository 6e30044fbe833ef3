// Whether two builds answer the same (bench/experiments/README.md): this checkout and `BEFORE=<checkout>`
// (a `git worktree` of another commit, its `node_modules` linked and its assets built, as for `npm
// run bench:compare`), each under wrangler's dev server with storage of its own, are sent the same
// requests at once, and their answers compared, status and body, once the ids, times, durations and
// ports that differ between any two runs are put in words. The requests: every route of the OpenAPI
// document with each method and a list of bodies that are wrong in one way each, the list queries
// with wrong values, a run of requests that succeed with the demo model, whose answers are fixed
// (turns in every stream mode, a tool's permission asked, a branch, a fork, a schedule, the stored
// history read back, the Harness, AG-UI, A2A and MCP doors, the export), and `RUNS` (default 800)
// random JSON bodies on the doors that take one (fast-check, fixed seed). A refactor of what checks
// requests or reads storage (the schemas, the routes, the stores) should change none of it. Prints
// each kind of difference once, from a little before where the two answers part, and the counts.
// Loopback only; bounded in time.
import fc from 'fast-check';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startDevServer } from '../../scripts/dev-server.mjs';

if (!process.env.BEFORE) throw new Error('BEFORE=<checkout of the commit to compare against> is required');
const before = resolve(process.env.BEFORE);
const RUNS = Number(process.env.RUNS ?? 800);
const guard = setTimeout(() => (console.error('same-answers: stopped at its 600 s bound'), process.exit(3)), 600_000);
const vars = { RATE_LIMIT_PER_MINUTE: '0' };
const persist = (name) => ['--persist-to', mkdtempSync(join(tmpdir(), `same-answers-${name}-`))];
const ours = await startDevServer({ inspector: false, vars, extraArgs: persist('ours') });
const theirs = await startDevServer({ inspector: false, cwd: before, config: join(before, 'wrangler.toml'), vars, extraArgs: persist('before') });

/** What differs between any two runs: the port, the ids the service makes, the times and durations. */
const inWords = (text) =>
  text
    .replace(/127\.0\.0\.1:\d+/g, 'HOST')
    .replace(/\b(turn|msg|use|call|ses|ctx|task)_[0-9a-z_]+/g, '$1_X')
    .replace(/\b([a-z]{2,5})_[0-9a-f]{16,}\b/g, '$1_X')
    .replace(/\b[0-9a-f]{32}\b/g, 'HEX')
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, 'UUID')
    .replace(/\d{4}-\d\d-\d\d[T ][\d:.]+Z?/g, 'TIME')
    .replace(/\b1\d{12}\b/g, 'EPOCH_MS')
    .replace(/"(latencyMs|at|createdAt|updatedAt|time)":[\d.]+/g, '"$1":0');

let sent = 0;
let differing = 0;
const told = new Set();
async function both(method, path, body, headers = { 'content-type': 'application/json', accept: 'application/json' }) {
  sent += 1;
  const answer = async (base) => {
    const response = await fetch(base + path, { method, headers, body: method === 'GET' ? undefined : body, signal: AbortSignal.timeout(15_000) });
    return `${response.status} ${inWords(await response.text())}`;
  };
  const [after, was] = await Promise.all([answer(ours.base), answer(theirs.base)]);
  if (after === was) return;
  differing += 1;
  const kind = `${method} ${path.split('/')[1]} ${after.slice(0, 80)}`;
  if (told.has(kind)) return;
  told.add(kind);
  // Shown from a little before where they part, since a stream differs late as often as early.
  let at = 0;
  while (after[at] === was[at]) at += 1;
  const from = Math.max(0, at - 120);
  console.log(`${method} ${path} ${String(body).slice(0, 200)}\n  (from character ${from})\n  this checkout: ${after.slice(from, from + 400)}\n  BEFORE:        ${was.slice(from, from + 400)}`);
}

const bodies = [
  undefined, '', 'null', '[]', '{}', '{', '"x"', '1',
  '{"messages":[]}', '{"messages":null}', '{"messages":[{"role":"user","content":""}]}',
  '{"messages":[{"role":"user","content":[{"type":"image","mimeType":"text/plain","data":""}]}]}',
  '{"messages":[{"role":"tool","content":"x"}]}', '{"messages":[{"role":"user","content":"hi"}],"tools":[{}]}', '{"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"a b"}]}',
  '{"messages":[{"role":"user","content":"hi"}],"model":123}', '{"messages":[{"role":"user","content":"hi"}],"stream":"x"}',
  '{"messages":[{"role":"user","content":"hi"}],"ifBusy":"steer","parentId":"msg_1"}',
  '{"jsonrpc":"2.0","id":1,"method":"tools/list"}', '{"jsonrpc":"2.0","id":1,"method":"message/send","params":{}}',
  '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"send_message","arguments":{}}}', '{"jsonrpc":"2.0","id":1.5,"method":"x"}',
  '{"jsonrpc":"2.0","id":1,"method":"tasks/list","params":{"pageSize":0}}',
  '{"sessionId":"","userId":"u","input":"x"}', '{"sessionId":"s","userId":"u","input":"","chatModel":{"temperature":3}}',
  '{"model":{"id":"","provider":"x"},"context":{"messages":[]}}', '{"threadId":"t","runId":"","messages":[]}',
  '{"messages":[{"role":"user","content":"hi"}],"cron":"* * *"}', '{"messages":[{"role":"user","content":"hi"}],"at":"2020-01-01"}',
  '{"messages":[{"role":"user","content":"hi"}],"cron":"0 9 * * *","timezone":"Mars/Base"}',
  '{"messages":[{"role":"user","content":"hi"}],"at":"2099-01-01T00:00:00Z","timezone":"UTC"}',
];
const queries = ['?limit=0', '?limit=x', '?limit=501', '?cursor=zz', '?leaf=msg_0', '?status=nope', '?since=yesterday', '?after=-1', '?stream=none', '?from=2026-13-01', '?from=2026-12-02&to=2026-12-01'];
const listed = ['/sessions', '/sessions/same/messages', '/sessions/same/turns', '/usage', '/sessions/same/turns/turn_0123456789abcdef01234567/events', '/sessions/same/deliveries'];
/** Requests that succeed, in order (each may read what the ones before it made), with the demo model, whose answers are fixed. */
const flows = [
  ['POST', '/sessions/ok/turns', { messages: [{ role: 'user', content: 'calculate (2+3)*4' }] }],
  ['POST', '/sessions/ok/turns', { messages: [{ role: 'user', content: 'count to 3' }], stream: 'delta' }],
  ['POST', '/sessions/ok/turns', { messages: [{ role: 'user', content: 'chart 3, 5, 2' }], stream: 'message' }],
  ['POST', '/sessions/ok/turns', { messages: [{ role: 'user', content: 'what time is it in Asia/Tokyo' }], stream: 'pi' }],
  ['POST', '/sessions/ok/turns', { messages: [{ role: 'user', content: 'hi again' }], parentId: 'msg_1' }],
  ['POST', '/sessions/ok/turns', { messages: [{ role: 'user', content: 'remember buy milk' }] }],
  ['GET', '/sessions/ok'],
  ['GET', '/sessions/ok/messages'],
  ['GET', '/sessions/ok/messages?leaf=msg_3&limit=2'],
  ['GET', '/sessions/ok/turns'],
  ['GET', '/sessions/ok/turns?status=finished&limit=2'],
  ['GET', '/sessions/ok/branches'],
  ['POST', '/sessions/ok/branches/msg_6/activate'],
  ['POST', '/sessions/ok/fork', { sessionId: 'ok-fork', upTo: 'msg_3' }],
  ['GET', '/sessions/ok-fork/messages'],
  ['POST', '/sessions/ok/schedules', { messages: [{ role: 'user', content: 'good morning' }], cron: '0 9 * * *', timezone: 'Europe/Paris' }],
  ['GET', '/sessions/ok/schedules'],
  ['GET', '/sessions'],
  ['GET', '/usage'],
  ['GET', '/users/me'],
  ['POST', '/harness/chat', { sessionId: 'ok-harness', userId: 'u', input: 'calculate 2*21' }],
  ['POST', '/ag-ui', { threadId: 'ok-agui', runId: 'run-1', messages: [{ id: 'm1', role: 'user', content: 'list notes' }] }],
  ['POST', '/a2a', { jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: { kind: 'message', role: 'user', messageId: 'm1', contextId: 'ok-a2a', parts: [{ kind: 'text', text: 'hi' }] } } }],
  ['POST', '/a2a', { jsonrpc: '2.0', id: 2, method: 'tasks/list', params: { contextId: 'ok-a2a' } }],
  ['POST', '/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list' }],
  ['GET', '/users/me/export'],
];
const doors = ['/sessions/random/turns', '/harness/chat', '/api/stream', '/ag-ui', '/sessions/random/schedules', '/a2a', '/mcp'];
try {
  const paths = Object.keys((await (await fetch(`${ours.base}/openapi.json`)).json()).paths);
  for (const path of paths) for (const method of ['GET', 'POST', 'DELETE', 'PUT']) for (const body of bodies) await both(method, path.replace(/\{[^}]+\}/g, 'same'), body);
  for (const path of listed) for (const query of queries) await both('GET', path + query, undefined, {});
  for (const [method, path, body] of flows) await both(method, path, body === undefined ? undefined : JSON.stringify(body), { 'content-type': 'application/json', accept: 'application/json, text/event-stream' });
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...doors), fc.jsonValue({ maxDepth: 4 }), async (path, value) => (await both('POST', path, JSON.stringify(value)), true)),
    { numRuns: RUNS, seed: 7 },
  );
  console.log(`${sent} requests, ${differing} answered differently`);
} finally {
  clearTimeout(guard);
  ours.stop();
  theirs.stop();
}
