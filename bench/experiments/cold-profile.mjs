// Where a new isolate's first request goes: V8's sampling profile of a fresh runtime's first turn
// (or `MODE=refused`: a first request its Worker refuses alone; `MODE=plain`: a plain turn request it
// checks, then refuses for its model, as a Worker isolate's first turn is checked; `MODE=object`: the
// first turn once the Worker has refused a plain request, left out of the profile, so that what is
// profiled is mostly the session's object's first turn), taken through workerd's inspector
// from before the request to its answer's end. The bundle is the one `wrangler deploy --dry-run`
// makes (bench/cold-isolate.mjs); each sample's own time is put in the source file its frame maps
// to (the upload's source map), summed over `RUNS` fresh runtimes (default 5). Prints the files and
// the functions that took the most (`LATER=1`: a second new session's turn, after a first one). The
// profiler slows what it samples: read shares, not durations.
import { SourceMap } from 'node:module';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import WebSocket from 'ws';
import { bundleOf, freshRuntime, postTurn, STAND_IN_TURN, WORKER_FIRST } from '../cold-isolate.mjs';
import { startBenchUpstream, serviceVars } from '../upstream.mjs';

const RUNS = Number(process.env.RUNS ?? 5);
const MODE = process.env.MODE ?? 'model';
/** `LATER=1`: the turn of a second new session, after a first one the profile leaves out. */
const LATER = process.env.LATER === '1';
const root = resolve(import.meta.dirname, '..', '..');
const bundle = { objects: { SESSIONS: 'SessionObject', USERS: 'UserObject' }, ...bundleOf({ config: join(root, 'wrangler.toml') }, root) };
const mapFile = readdirSync(bundle.outdir).find((name) => name.endsWith('.js.map'));
const sourceMap = new SourceMap(JSON.parse(readFileSync(join(bundle.outdir, mapFile), 'utf8')));
const upstream = await startBenchUpstream();

/** One inspector session: `send` a method, get its result. */
async function inspector(url) {
  const socket = new WebSocket(url);
  await new Promise((done, fail) => socket.once('open', done).once('error', fail));
  let next = 1;
  const waiting = new Map();
  socket.on('message', (data) => {
    const message = JSON.parse(data.toString());
    waiting.get(message.id)?.(message.result);
    waiting.delete(message.id);
  });
  return {
    send: (method, params = {}) =>
      new Promise((done) => {
        const id = next++;
        waiting.set(id, done);
        socket.send(JSON.stringify({ id, method, params }));
      }),
    close: () => socket.close(),
  };
}

const byFile = new Map();
const byFunction = new Map();
/** zod's own samples, by the first of our source files above them on the stack: what asked for zod. */
const zodBy = new Map();
let total = 0;
for (let run = 0; run < RUNS; run += 1) {
  const port = 9300 + Math.floor(Math.random() * 600);
  const runtime = freshRuntime(bundle, serviceVars(upstream.url, 20_000), { inspectorPort: port });
  await runtime.ready;
  const body = MODE === 'refused' ? { messages: [] } : MODE === 'plain' ? { ...STAND_IN_TURN, model: 'nope:none' } : STAND_IN_TURN;
  const post = (sessionId) => postTurn(runtime, sessionId, body, MODE === 'refused' || MODE === 'plain' ? 400 : 200);
  if (LATER) await post(`cold-${run}-first`);
  if (MODE === 'object') await postTurn(runtime, `cold-${run}-worker`, WORKER_FIRST.object, 400);
  const session = await inspector(`ws://127.0.0.1:${port}/core:user:`);
  await session.send('Profiler.enable');
  await session.send('Profiler.setSamplingInterval', { interval: 100 });
  await session.send('Profiler.start');
  await post(`cold-${run}`);
  const { profile } = await session.send('Profiler.stop');
  session.close();
  await runtime.dispose();
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map(profile.nodes.flatMap((node) => (node.children ?? []).map((child) => [child, node])));
  /** Where a frame of the bundle comes from: its source file, from the upload's source map. */
  const sourceOf = ({ url, lineNumber, columnNumber }) => (url.endsWith('index.js') && lineNumber >= 0 ? sourceMap.findEntry(lineNumber, columnNumber) : undefined);
  const askedBy = (node) => {
    for (let above = node; above; above = parents.get(above.id)) {
      const entry = sourceOf(above.callFrame);
      if (entry?.originalSource?.includes('src/')) return `${entry.originalSource.slice(entry.originalSource.indexOf('src/'))}:${entry.originalLine + 1}`;
    }
    return '?';
  };
  profile.samples.forEach((id, index) => {
    const { callFrame } = nodes.get(id);
    if (callFrame.functionName === '(idle)') return;
    const micros = profile.timeDeltas[index] ?? 0;
    total += micros;
    let file = callFrame.url ? 'runtime' : callFrame.functionName;
    let name = callFrame.functionName || '(anonymous)';
    const entry = sourceOf(callFrame);
    if (entry) {
      const source = entry.originalSource ?? `? ${callFrame.lineNumber}:${callFrame.columnNumber}`;
      file = source.includes('node_modules/') ? source.slice(source.lastIndexOf('node_modules/')) : source.includes('src/') ? source.slice(source.indexOf('src/')) : source;
      name = `${entry.name ?? name} ${file}:${(entry.originalLine ?? 0) + 1}`;
    }
    if (file.startsWith('node_modules/zod/')) {
      const asker = askedBy(nodes.get(id));
      zodBy.set(asker, (zodBy.get(asker) ?? 0) + micros);
    }
    byFile.set(file, (byFile.get(file) ?? 0) + micros);
    byFunction.set(name, (byFunction.get(name) ?? 0) + micros);
  });
}
await upstream.close();
const top = (map, count) => [...map].sort((a, b) => b[1] - a[1]).slice(0, count).map(([key, micros]) => `${(micros / 1000 / RUNS).toFixed(2).padStart(7)} ms  ${key}`).join('\n');
console.log(`${MODE}: ${(total / 1000 / RUNS).toFixed(1)} ms busy a run under the profiler (${RUNS} runs)\n\nby source file:\n${top(byFile, 30)}\n\nby function:\n${top(byFunction, 30)}\n\nzod, by the first of our files above it:\n${top(zodBy, 20)}`);
