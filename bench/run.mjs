#!/usr/bin/env node
// `npm run bench`: runs the benchmarks (in workerd through the vitest pool, and the platform-free
// core in Node), prints their figures and writes bench/RESULTS.md. Bounded: each part stops itself
// after a few minutes.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UPLOAD_BUDGET_KIB } from '../scripts/check-upload.mjs';
import { historyChartSvg } from './chart.mjs';
import { round } from './measure.mjs';

async function run(command, args, limitMs) {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const timer = setTimeout(() => child.kill('SIGTERM'), limitMs);
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
    process.stdout.write(chunk);
  });
  const code = await new Promise((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  return { code, output };
}

const workerd = await run('npx', ['vitest', 'run', '--config', 'bench/vitest.bench.config.ts'], 240_000);
const bundle = join(mkdtempSync(join(tmpdir(), 'bench-')), 'cpu-per-event.mjs');
const built = await run('npx', ['esbuild', 'bench/cpu-per-event.ts', '--bundle', '--platform=node', '--format=esm', `--outfile=${bundle}`, '--log-level=warning'], 60_000);
const node = built.code === 0 ? await run('node', [bundle], 60_000) : built;
const e2e = await run('node', ['bench/e2e.mjs'], 350_000);
const startup = await run('node', ['bench/startup.mjs'], 240_000);
const output = workerd.output + node.output + e2e.output + startup.output;
const code = workerd.code || node.code || e2e.code || startup.code;

const results = [...output.matchAll(/BENCH (\{.*\})/g)].map((match) => JSON.parse(match[1]));
const hydration = results.find((result) => result.name === 'context-hydration');
const lines = ['# Benchmark results', '', `Measured by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}, on the 2-core development machine, in workerd (the vitest pool, real Durable Object SQLite storage).`, ''];
if (hydration) {
  lines.push(
    '## Bounded hydration: turn cost against stored history',
    '',
    'Two sessions, long since compacted (the latest summary covers all but the last 40 messages); turns',
    'alternate between them, demo model, JSON mode; each latency is the mean of the middle half of 31 turns (workerd\'s clock moves in whole milliseconds). "Loaded" is',
    'what a turn reads into memory: the messages after the latest summary.',
    '',
    '| stored messages | turn latency | messages loaded | bytes loaded |',
    '| ---: | ---: | ---: | ---: |',
    ...hydration.rows.map((row) => `| ${row.stored.toLocaleString('en')} | ${row.turnMs} ms | ${row.loaded.messages} | ${row.loaded.bytes.toLocaleString('en')} |`),
    '',
    `Latency ratio, 50,000 over 500: **${hydration.latencyRatio}**.`,
    '',
    'Timing note: inside workerd the clock advances only at I/O, so each turn\'s latency is whole',
    'milliseconds; the mean of many resolves finer.',
    '',
  );
  console.log(`\ncontext hydration: ${hydration.rows.map((row) => `${row.stored} stored -> ${row.turnMs} ms, ${row.loaded.messages} loaded`).join('; ')}; ratio ${hydration.latencyRatio}`);
}
const history = results.find((result) => result.name === 'history-cost');
if (history) {
  lines.push(
    '## Cost against history',
    '',
    `A turn (demo model, JSON mode) on sessions of each size, never compacted, so the prompt grows with the history; latency: the mean of the middle half of ${history.rounds} turns (workerd's clock moves in whole milliseconds, so a median of a few jumps by whole steps), sizes alternating; rows: the median. Rows read and written: the sums of \`rowsRead\` and \`rowsWritten\` over every SQLite cursor of the turn.`,
    '',
    '| stored messages | turn latency | rows read per turn | rows written per turn |',
    '| ---: | ---: | ---: | ---: |',
    ...history.rows.map((row) => `| ${row.stored.toLocaleString('en')} | ${row.turnMs} ms | ${row.rowsRead.toLocaleString('en')} | ${row.rowsWritten} |`),
    '',
    `At 5,000 over 10: latency **${history.latencyRatio}x**, rows written **${history.rowsRatio}x**.`,
    '',
    '![Turn latency and rows written per turn against stored messages](history-cost.svg)',
    '',
  );
  writeFileSync(new URL('./history-cost.svg', import.meta.url), historyChartSvg(history.rows));
  console.log(`history cost: ${history.rows.map((row) => `${row.stored} -> ${row.turnMs} ms, ${row.rowsWritten} rows`).join('; ')}`);
}
const woken = results.find((result) => result.name === 'woken-cost');
if (woken) {
  lines.push(
    '## A woken session: turn cost against stored history',
    '',
    `The same turns on sessions whose object was evicted before each turn (\`abortAllDurableObjects\`), as an idle session's is: its next turn reads its kept messages back from storage before it calls the model, and takes each one its isolate parsed before as it was made then (\`parsedOnce\`, bench/PROFILE.md "A woken session's messages parsed once"), parsing and checking the others. "Parsed again": what the isolate kept parsed was pushed out before the turn, as in an isolate that never read the session; "as its isolate parsed them": kept. Never compacted (a compacted session reads only what follows its latest summary, as the bounded hydration above shows); latency: the mean of the middle half of ${woken.rounds} turns, sizes and kinds alternating.`,
    '',
    '| stored messages | parsed again | as its isolate parsed them |',
    '| ---: | ---: | ---: |',
    ...woken.rows.map((row) => `| ${row.stored.toLocaleString('en')} | ${row.parsedMs} ms | ${row.keptMs} ms |`),
    '',
    `At 5,000 over 10: latency **${woken.parsedRatio}x** parsed again, **${woken.keptRatio}x** as its isolate parsed them (for reference: the targets read a session that stays in memory, above).`,
    '',
  );
  console.log(`woken cost: ${woken.rows.map((row) => `${row.stored} -> ${row.parsedMs} / ${row.keptMs} ms`).join('; ')}; ratios ${woken.parsedRatio} / ${woken.keptRatio}`);
}
const agent = results.find((result) => result.name === 'agent-history');
if (agent) {
  lines.push(
    '## An agent session: a tool\'s step against stored history',
    '',
    `A turn (demo model, JSON mode) that takes a tool's step first (\`current_time\`, then the answer: two model calls, each reading the whole history), on sessions whose stored messages are all such steps (a question, the call, its result, the answer), never compacted; latency: the mean of the middle half of ${agent.rounds} turns, sizes alternating. The rows above hold no tool call; here every model call goes over thousands (its estimate, its conversion, the call ids a model may not give again).`,
    '',
    '| stored messages | turn latency |',
    '| ---: | ---: |',
    ...agent.rows.map((row) => `| ${row.stored.toLocaleString('en')} | ${row.turnMs} ms |`),
    '',
    `At 5,000 over 12: latency **${agent.latencyRatio}x**.`,
    '',
  );
  console.log(`agent history: ${agent.rows.map((row) => `${row.stored} -> ${row.turnMs} ms`).join('; ')}; ratio ${agent.latencyRatio}`);
}
const branchCost = results.find((result) => result.name === 'branch-cost');
if (branchCost) {
  lines.push(
    '## Cost on a tree of branches',
    '',
    `A turn (demo model, JSON mode) on the longest branch of a session of 5,000 messages in 50 branches (each forked one message before the end of the one before), against one on a session of 5,000 messages in a line; never compacted; latency: the mean of the middle half of ${branchCost.rounds} turns, sessions alternating; rows: the median over the turn's SQLite cursors (docs/branches.md).`,
    '',
    '| session | messages on the branch | turn latency | rows read per turn | rows written per turn |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...branchCost.rows.map((row) => `| ${row.name} | ${row.branchMessages.toLocaleString('en')} | ${row.turnMs} ms | ${row.rowsRead.toLocaleString('en')} | ${row.rowsWritten} |`),
    '',
    `Tree over line: latency **${branchCost.latencyRatio}x**, rows read **${branchCost.readRatio}x** (${branchCost.rows[1].rowsRead} against ${branchCost.rows[0].rowsRead}: the tree's turn reads one row a branch more, where its answer's messages look for siblings), rows written **${branchCost.writtenRatio}x**.`,
    '',
  );
  console.log(`branch cost: ${branchCost.rows.map((row) => `${row.name} -> ${row.turnMs} ms, ${row.rowsRead} read, ${row.rowsWritten} written`).join('; ')}`);
}
const ttft = results.find((result) => result.name === 'ttft');
const throughput = results.find((result) => result.name === 'throughput');
const concurrency = results.find((result) => result.name === 'concurrency');
if (ttft && throughput && concurrency) {
  lines.push(
    '## End to end, under wrangler\'s dev server, against the physical limit',
    '',
    'Each system under wrangler\'s dev server on loopback (started through its API without the DevTools inspector: `scripts/dev-worker.mjs`), one stand-in OpenAI-compatible upstream in Node streaming at once; systems alternate request by request, in a new random order each round (a system that always followed the same one would inherit its after-work). "limit" is a bare Worker that pipes the upstream\'s bytes through unparsed (`bench/systems/limit.js`); "limit through a DO" pipes them the same way from a Durable Object the Worker hands the request to (`bench/systems/limit-do.js`), the floor of any design that holds each session in one; "limit through a new DO" does so from a new object for each request, the floor of a new session\'s first turn. "limit through a DO that reads the stream" (`bench/systems/limit-do-read.js`) has its object read the answer in JavaScript, as any agent must to store it or find its tool calls: in reads of up to 64 KiB, as ours does, it splits the SSE events, parses each chunk\'s JSON and writes one SSE event per delta, with no validation or loop; "that stores, then reads" also stores the request (one row) before it calls the model, the least a design that keeps its turns writes, so the storage\'s commit (which holds an object\'s outgoing messages) is on its clock too. "the least a turn does" (`bench/systems/minimal-turn.js`) is the floor of any design that keeps this service\'s turns API for a plain streamed turn, written as lean as we know how: it routes and checks the request, refuses a second turn while one runs, stores the turn and its user message in one transaction, sends the model the session\'s history (kept in memory), streams `turn_start` at once and one `text_delta` per delta, and stores the answer, the stop and the events before `turn_stop`; no tools, users, reports, idempotency, branches or compaction. "the least a turn does, served as ours is" is the same, served as this service is (`bench/systems/minimal-turn-assets.toml`: the playground\'s static assets in front of the Worker, every path but the playground\'s to the Worker first), offering the model the default agent\'s tools as the contract\'s agent does on every turn. "peer" is Cloudflare\'s `AIChatAgent` (`@cloudflare/ai-chat` on the `agents` SDK) with the AI SDK\'s `streamText`, persisted in its own Durable Object, driven over its WebSocket chat protocol: a fresh chat opens its socket on the clock (that creates the agent\'s object, as a new session\'s first request does for ours), a long-lived chat keeps one open. "ours (long-lived session, a tool\'s step first)" is no target\'s row: its stand-in first calls the built-in `current_time` tool, so its first text event comes after a tool\'s step and a second model request (docs/decisions.md, 44), which no floor makes; it is there so that every run measures that path.',
    '',
    `Time to the first text event, ${ttft.turns} short turns each, and the runtime CPU a turn took (the median of what the system's workerd processes spent from the request to its answer's last byte):`,
    '',
    '| system | median | p99 | over the limit | runtime CPU a turn |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...ttft.rows.map((row) => `| ${row.name} | ${row.medianMs} ms | ${row.p99Ms} ms | ${row.ratioToLimit}x | ${row.cpuMs ?? '–'} ms |`),
    '',
    `Throughput, one answer of ${throughput.deltas.toLocaleString('en')} deltas (text events per second from the request to the last event, median of ${throughput.runs}):`,
    '',
    '| system | events per second | of the limit | of the limit through a DO | runtime CPU per event |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...throughput.rows.map((row) => `| ${row.name} | ${row.eventsPerSecond.toLocaleString('en')} | ${row.ratioToLimit}x | ${row.ratioToDo}x | ${row.cpuMicrosPerEvent ?? '–'} µs |`),
    '',
    'Runtime CPU: what the workerd processes of the system\'s dev server spent (their threads\' time on a CPU, from /proc\'s `schedstat`) over the run, per text event; the client, the upstream and the other systems run in processes of their own. A rate on this 2-core machine moves with whatever else runs; the CPU a system spends per event moves less.',
    '',
    'How the floors are measured: the same client as every system (Node\'s own HTTP client on kept-alive connections, the clock started before the request is written and read as each chunk arrives, before any parsing), the same upstream, the same dev server, in the same rounds. The bare Worker is the physical limit of this loopback; a Durable Object adds one hop, and a new one its creation. No system runs with `wrangler dev`\'s DevTools inspector: its relay of each console line and of each chunk of each subrequest\'s body cost the machine more CPU than any system, and put every floor above what it is (with it, the limit through a DO took 8.33 ms to the first text event and streamed 36,600 events a second; bench/PROFILE.md, "The dev server\'s inspector"). Every request goes through the dev server\'s proxy worker, as `npm start` serves it, and that costs every system about 3 ms: served by their runtimes directly, the pass-through answers in about 2 ms and the gap between ours and it stays the same, so these ratios are lower than they would be without the proxy (bench/PROFILE.md, "The dev server\'s proxy").',
    '',
    'How ours is configured (`serviceVars` in `bench/upstream.mjs`): the stand-in as its model, no title side calls, and no rate limiter (`RATE_LIMIT_PER_MINUTE=0`; the default, 120 a minute, asks the user\'s object before each POST: in `npm run bench:compare` with it on, the first text event moved 9.55 → 9.52 ms on a long-lived session and 13.66 → 14.24 ms on a new one).',
    '',
    'Why the rounds alternate, and what that does to ours: each system\'s turns come apart, after the others\' (a system that always followed the same one would inherit its after-work). Ours then starts each turn after a pause. That is not what makes its gap: run alone, its first text event is 1.53x the floor that stores and streams back at once with the turns back to back, and 1.44x after a 20 ms pause, at the fourth stop of issue 24 (`bench/experiments/arrive.mjs`; `bench/PROFILE.md`, "The dev server\'s inspector").',
    '',
    `Concurrency: ${concurrency.sessions} sessions at once, ${concurrency.turnsEach} streamed turns each, in ${concurrency.seconds} s: p50 ${concurrency.p50Ms} ms, p99 ${concurrency.p99Ms} ms, ${concurrency.errors} errors.`,
    '',
  );
  console.log(`ttft: ${ttft.rows.map((row) => `${row.name} ${row.medianMs} ms (${row.ratioToLimit}x)`).join('; ')}`);
  console.log(`throughput: ${throughput.rows.map((row) => `${row.name} ${row.eventsPerSecond}/s (${row.ratioToLimit}x)`).join('; ')}`);
}
const cpuPerEvent = results.find((result) => result.name === 'cpu-per-event');
const startupRun = results.find((result) => result.name === 'startup');
if (startupRun) {
  const [oursStart, floorStart] = ['ours', 'limit through a DO'].map((name) => startupRun.rows.find((row) => row.name === name));
  lines.push(
    '## Cold start: the upload and the startup CPU',
    '',
    `The Worker as \`wrangler deploy --dry-run\` would upload it (gzip as Cloudflare counts it), and the CPU of its startup phase: \`wrangler check startup\` runs the bundle's top-level code in workerd with the profiler on; the busy samples' time, mean of ${startupRun.runs} runs, systems alternating. A startup shorter than the profiler's sampling shows as one busy sample or none, as long as the time since the sample before it (here ${startupRun.intervalMs} ms, the median): so the ratio is taken over at least that, the floor's figure then being a bound, not a measure.`,
    '',
    '| Worker | bundle | gzip | startup CPU | runs |',
    '| --- | ---: | ---: | ---: | --- |',
    ...startupRun.rows.map((row) => `| ${row.name} | ${row.bytes.toLocaleString('en')} B | ${row.gzipKiB} KiB | ${row.startupCpuMs} ms | ${row.startupRuns.join(', ')} |`),
    '',
    `What a new isolate costs in all (the bundle in a fresh runtime, no profiler, the runtime's CPU from /proc, median of ${startupRun.runs}, kinds alternating): to get ready (the runtime's own start included: the limit through a DO's figure is about that), then the first turn of a new session and a later new session's turn, or a first request that the Worker refuses alone (a turn without messages, a 400 before any object: what a Worker isolate that no object shares pays; for ours also a plain turn that asks for a model the deployment does not offer, checked as the Worker checks every plain turn before it hands it to the session: what such an isolate pays for its first turn, and a chat socket's upgrade refused for its subprotocol once its route is loaded, bench/PROFILE.md "A Worker's turn without zod"). For ours also the first turn once its Worker has refused a plain turn, loading its own part: the rest is the session object's first turn, as an isolate of the objects pays it in a deployment, zod's first use about a fifth of it (bench/PROFILE.md, "A session object's first turn"). Ours loads each part on the first event that needs it, so its first turn carries what its startup no longer does; the least a turn does (offering the tools) evaluates all it has at startup. Both with the stand-in model, streamed; ours also with its demo model, as \`npm start\` serves it (bench/PROFILE.md, "Cold start", "A new isolate beside the least's").`,
    '',
    '| a new isolate | ready | first turn | a later new session\'s turn | a first request the Worker refuses |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...startupRun.coldIsolates.map((row) => `| ${row.name} | ${row.readyMs} ms | ${row.firstTurnMs === undefined ? '–' : `${row.firstTurnMs} ms`} | ${row.laterTurnMs === undefined ? '–' : `${row.laterTurnMs} ms`} | ${row.refusedMs === undefined ? '–' : `${row.refusedMs} ms`} |`),
    '',
  );
  console.log(`startup: ours ${oursStart.startupCpuMs} ms (${oursStart.ratioToFloor}x), ${oursStart.gzipKiB} KiB gzip; floor ${floorStart.startupCpuMs} ms`);
}
if (ttft && throughput && history) {
  const row = (rows, name) => rows.find((candidate) => candidate.name === name);
  const check = (ok) => (ok ? 'met' : '**missed**');
  const ratio = (name, floor) => round(row(ttft.rows, name).medianMs / row(ttft.rows, floor).medianMs);
  const encoder = (name) => cpuPerEvent?.rows.find((candidate) => candidate.name.startsWith(`loop + ${name} encoder`))?.microsecondsPerEvent;
  const oursStartup = startupRun?.rows.find((candidate) => candidate.name === 'ours');
  const oursRate = row(throughput.rows, 'ours (fresh session)');
  // [figure, wanted, measured, met]
  const targets = [
    ['first text event, long-lived session, over the limit through a DO', '≤ 1.10x', `${ratio('ours (long-lived session)', 'limit through a DO')}x`, ratio('ours (long-lived session)', 'limit through a DO') <= 1.1],
    ['first text event, new session, over the limit through a new DO', '≤ 1.15x', `${ratio('ours (fresh session)', 'limit through a new DO')}x`, ratio('ours (fresh session)', 'limit through a new DO') <= 1.15],
    ['throughput of a 20,000-delta answer, of the limit through a DO', '≥ 0.90x', `${oursRate.ratioToDo}x`, oursRate.ratioToDo >= 0.9],
    ['Worker startup CPU over the limit-through-a-DO Worker\'s', '≤ 4x', oursStartup ? `≥ ${oursStartup.ratioToFloor}x (${oursStartup.startupCpuMs} ms)` : '–', oursStartup ? oursStartup.ratioToFloor <= 4 : undefined],
    ['bundle, gzip', `≤ ${UPLOAD_BUDGET_KIB} KiB`, oursStartup ? `${oursStartup.gzipKiB} KiB` : '–', oursStartup ? oursStartup.gzipKiB <= UPLOAD_BUDGET_KIB : undefined],
    ['CPU per internal event, Harness encoder (with the loop)', '≤ 2 µs', `${encoder('Harness')} µs`, encoder('Harness') <= 2],
    ['CPU per internal event, pi encoder (with the loop)', '≤ 2 µs', `${encoder('pi')} µs`, encoder('pi') <= 2],
    ['rows written per turn, 5,000 messages over 10', '≤ 1x', `${history.rowsRatio}x`, history.rowsRatio <= 1],
    ['turn latency, 5,000 messages over 10', '≤ 1.5x', `${history.latencyRatio}x`, history.latencyRatio <= 1.5],
    ['(for reference) first text event, long-lived, over the DO that reads the stream', '', `${ratio('ours (long-lived session)', 'limit through a DO that reads the stream')}x`, undefined],
    ['(for reference) first text event, new session, over the new DO that reads the stream', '', `${ratio('ours (fresh session)', 'limit through a new DO that reads the stream')}x`, undefined],
    ['(for reference) the DO that stores, then reads, over the limit through a DO; the new one over the new DO', '', `${ratio('limit through a DO that stores, then reads', 'limit through a DO')}x; ${ratio('limit through a new DO that stores, then reads', 'limit through a new DO')}x`, undefined],
    ['(for reference) first text event over the DO that stores, then reads: long-lived; new session', '', `${ratio('ours (long-lived session)', 'limit through a DO that stores, then reads')}x; ${ratio('ours (fresh session)', 'limit through a new DO that stores, then reads')}x`, undefined],
    ['(for reference) the least a turn does, over the limit through a DO; on a new session, over the new DO', '', `${ratio('the least a turn does (long-lived session)', 'limit through a DO')}x; ${ratio('the least a turn does (new session)', 'limit through a new DO')}x`, undefined],
    ['(for reference) the least a turn does served as ours is, over the limit through a DO; on a new session, over the new DO', '', `${ratio('the least a turn does, served as ours is (long-lived session)', 'limit through a DO')}x; ${ratio('the least a turn does, served as ours is (new session)', 'limit through a new DO')}x`, undefined],
    ['(for reference) first text event over the least a turn does served as ours is: long-lived; new session', '', `${ratio('ours (long-lived session)', 'the least a turn does, served as ours is (long-lived session)')}x; ${ratio('ours (fresh session)', 'the least a turn does, served as ours is (new session)')}x`, undefined],
    ['(for reference) first text event over the least a turn does: long-lived; new session', '', `${ratio('ours (long-lived session)', 'the least a turn does (long-lived session)')}x; ${ratio('ours (fresh session)', 'the least a turn does (new session)')}x`, undefined],
    ['(for reference) throughput of the least a turn does, of the limit through a DO; ours, of the least', '', `${row(throughput.rows, 'the least a turn does (new session)').ratioToDo}x; ${round(oursRate.eventsPerSecond / row(throughput.rows, 'the least a turn does (new session)').eventsPerSecond)}x`, undefined],
    ['(for reference) throughput taken round by round (the median of each round\'s ratio): ours, of the limit through a DO; ours, of the least', '', `${throughput.paired.oursOfDo}x; ${throughput.paired.oursOfLeast}x`, undefined],
    ['(for reference) throughput of the DO that reads the stream, of the limit through a DO; ours, of the DO that reads', '', `${row(throughput.rows, 'limit through a DO that reads the stream').ratioToDo}x; ${round(oursRate.eventsPerSecond / row(throughput.rows, 'limit through a DO that reads the stream').eventsPerSecond)}x`, undefined],
    ['(for reference) runtime CPU per event: ours, the least a turn does, the DO that reads, the DO', '', `${oursRate.cpuMicrosPerEvent} / ${row(throughput.rows, 'the least a turn does (new session)').cpuMicrosPerEvent} / ${row(throughput.rows, 'limit through a DO that reads the stream').cpuMicrosPerEvent} / ${row(throughput.rows, 'limit through a DO').cpuMicrosPerEvent} µs`, undefined],
  ];
  const peerFresh = row(ttft.rows, 'peer (fresh chat)');
  const peerLong = row(ttft.rows, 'peer (long-lived chat)');
  const peerRate = row(throughput.rows, 'peer (fresh chat)');
  lines.push(
    '## Targets',
    '',
    '| target | wanted | measured | |',
    '| --- | ---: | ---: | --- |',
    ...targets.map(([name, wanted, value, met]) => `| ${name} | ${wanted} | ${value} | ${met === undefined ? '' : check(met)} |`),
    `| ahead of the peer: first text event, long-lived | ours < peer | ${row(ttft.rows, 'ours (long-lived session)').medianMs} ms vs ${peerLong?.medianMs} ms | ${check(peerLong && row(ttft.rows, 'ours (long-lived session)').medianMs < peerLong.medianMs)} |`,
    `| ahead of the peer: first text event, fresh | ours < peer | ${row(ttft.rows, 'ours (fresh session)').medianMs} ms vs ${peerFresh?.medianMs} ms | ${check(peerFresh && row(ttft.rows, 'ours (fresh session)').medianMs < peerFresh.medianMs)} |`,
    `| ahead of the peer: throughput | ours > peer | ${oursRate.eventsPerSecond.toLocaleString('en')}/s vs ${peerRate?.eventsPerSecond.toLocaleString('en')}/s | ${check(peerRate && oursRate.eventsPerSecond > peerRate.eventsPerSecond)} |`,
    '',
    `Where a target is missed, \`bench/PROFILE.md\` says what the profiles (\`npm run profile\`) and the experiments showed, what was changed, and the figures before and after. In this run the least a turn does, which keeps the turns API with nothing more, streams at ${row(throughput.rows, 'the least a turn does (new session)').ratioToDo}x the limit through a DO, and the DO that only reads the stream at ${row(throughput.rows, 'limit through a DO that reads the stream').ratioToDo}x; served as ours is and offering the tools, its first text event comes at ${ratio('the least a turn does, served as ours is (long-lived session)', 'limit through a DO')}x the limit through a DO on a long-lived session and ${ratio('the least a turn does, served as ours is (new session)', 'limit through a new DO')}x the new DO on a new one. Which missed targets no design that keeps the contract reaches, and what stands between ours and the others, is in bench/PROFILE.md, "What remains, and why".`,
    '',
  );
}
const cpu = cpuPerEvent;
if (cpu) {
  lines.push(
    '## CPU per event of the core, in Node',
    '',
    `The agent loop on a scripted provider streaming ${cpu.deltas.toLocaleString('en')} text deltas, alone and with each encoder`,
    `listening (its framing included); \`process.cpuUsage\`, median of ${cpu.runs} runs, systems alternating, Node ${cpu.node}.`,
    '',
    '| system | CPU per internal event |',
    '| --- | ---: |',
    ...cpu.rows.map((row) => `| ${row.name} | ${row.microsecondsPerEvent} µs |`),
    '',
  );
  console.log(`cpu per event: ${cpu.rows.map((row) => `${row.name} ${row.microsecondsPerEvent} µs`).join('; ')}`);
}
writeFileSync(new URL('./RESULTS.md', import.meta.url), lines.join('\n'));
process.exit(code ?? 1);
