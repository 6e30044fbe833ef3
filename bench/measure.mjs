// What the end-to-end benchmarks share: one timed streamed request, a random order, and the figures.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';

/** A copy in random order (Fisher–Yates). */
export function shuffled(items) {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index--) {
    const other = Math.floor(Math.random() * (index + 1));
    [copy[index], copy[other]] = [copy[other], copy[index]];
  }
  return copy;
}

export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
export const quantile = (values, q) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))];
export const round = (value, places = 2) => Math.round(value * 10 ** places) / 10 ** places;

/**
 * The client of the timed requests: Node's own HTTP client with kept-alive connections, the leanest
 * there is (fetch, undici's, took a millisecond more to the first event on the floor itself), so
 * that the ratios measure the systems, not the client (bench/RESULTS.md says how the floor is measured).
 */
const agent = new http.Agent({ keepAlive: true });

/**
 * Sends one request and reads its stream to the end: the time to the first text event, the time of
 * the last, and how many text events came (counted by `marker`, which each text event holds once).
 * The clock starts before the request is written and stops as each chunk arrives, before any parsing.
 */
export function measure(url, body, marker) {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const started = performance.now();
    const request = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } }, (response) => {
      let first;
      let last = started;
      let count = 0;
      let carry = '';
      response.setEncoding('utf8');
      let failure = '';
      response.on('data', (chunk) => {
        const now = performance.now();
        if (response.statusCode >= 400) failure += chunk;
        const text = carry + chunk;
        let at = text.indexOf(marker);
        let seen = 0;
        while (at !== -1) {
          seen++;
          at = text.indexOf(marker, at + marker.length);
        }
        // Keep the tail, so that a marker split across two reads is counted once.
        carry = text.slice(Math.max(0, text.length - marker.length + 1));
        if (seen > 0) {
          count += seen;
          last = now;
          first ??= now;
        }
      });
      response.on('end', () => {
        if (response.statusCode >= 400) return reject(new Error(`${url}: ${response.statusCode} ${failure}`));
        resolve({ ttft: (first ?? performance.now()) - started, totalMs: last - started, count });
      });
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(payload);
  });
}

/** The timed requests' one user message, numbered by its turn. */
const hello = (turn) => [{ role: 'user', content: `hello ${turn}` }];

/** A request to a system that pipes the upstream's answer through unparsed (the floors): its first text chunk is the upstream's own. */
export function measurePipe(url, model, turn) {
  return measure(url, { model, stream: true, messages: hello(turn) }, '"content":"w');
}

/** A request to a floor that reads the answer (`bench/systems/limit-do-read.js`): one `text_delta` event per delta, as ours. */
export function measureReader(url, model, turn) {
  return measure(url, { model, stream: true, messages: hello(turn) }, 'event: text_delta');
}

/** A streamed turn of the turns API (ours, or the least a turn does) at `url`, on the stand-in's model `model`. */
export function measureTurn(url, model, turn) {
  return measure(url, { stream: 'delta', model: `openai:${model}`, messages: hello(turn) }, 'event: text_delta');
}

/** Every thread's time on a CPU so far (ns, `/proc/<pid>/task/<tid>/schedstat`): fine enough for one request. */
function threadsCpuNs(pid) {
  return readdirSync(`/proc/${pid}/task`).reduce((sum, task) => sum + Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]), 0);
}

/** Each process of /proc: its pid, its name and its stat fields after the name (state, ppid, pgrp, ...). */
function* processes() {
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      yield { pid, name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), fields: stat.slice(stat.lastIndexOf(')') + 2).split(' ') };
    } catch {
      // The process ended while it was read.
    }
  }
}

/**
 * The CPU (ms) the workerd processes this script started itself (Miniflare's) have used so far, by
 * `threadsCpuNs`: fine enough for a single request.
 */
export function childRuntimeCpuMs() {
  const pids = [...processes()].filter(({ name, fields }) => name === 'workerd' && Number(fields[1]) === process.pid).map(({ pid }) => pid);
  return runtimesCpuNs(pids) / 1e6;
}

/** `work`'s wall clock and the CPU of the runtimes this script started, `[wall ms, CPU ms]`. */
export async function wallAndCpu(work) {
  const cpu = childRuntimeCpuMs();
  const started = performance.now();
  await work();
  return [performance.now() - started, childRuntimeCpuMs() - cpu];
}

/** `wallAndCpu` rows, told as their medians. */
export const wallAndCpuMedians = (rows) => `${round(median(rows.map(([wall]) => wall)))} ms wall, ${round(median(rows.map(([, cpu]) => cpu)))} ms CPU`;

/** The median of the differences of two series taken in the same runs, run by run (`after` less `before`): far steadier than either median. */
export const pairedMedian = (after, before) => median(after.map((value, run) => value - before[run]));

/** The medians of the paired differences of two builds' `wallAndCpu` rows, taken in the same runs: `; paired …`, or nothing without `before`. */
export const wallAndCpuPaired = (after, before) => {
  if (!before) return '';
  const column = (rows, at) => rows.map((row) => row[at]);
  return `; paired ${round(pairedMedian(column(after, 0), column(before, 0)))} ms wall, ${round(pairedMedian(column(after, 1), column(before, 1)))} ms CPU`;
};

/** The CPU (ns) each process of a process group (a dev server's: `startDevServer`'s `group`) has used so far, by `<name> <pid>`. */
export function groupCpuNs(group) {
  const byProcess = {};
  for (const { pid, name, fields } of processes()) {
    if (Number(fields[2]) !== group) continue;
    try {
      byProcess[`${name} ${pid}`] = threadsCpuNs(pid);
    } catch {
      // The process ended while it was read.
    }
  }
  return byProcess;
}

/** The pids of a dev server's runtimes (its workerd processes), by its process group (`startDevServer`'s `group`). */
export function groupRuntimes(group) {
  return [...processes()].filter(({ name, fields }) => name === 'workerd' && Number(fields[2]) === group).map(({ pid }) => pid);
}

/** The CPU (ns) these processes (`groupRuntimes`' pids, found once) have used so far: no walk of /proc, cheap enough to take around every request. */
export function runtimesCpuNs(pids) {
  let nanos = 0;
  for (const pid of pids) {
    try {
      nanos += threadsCpuNs(pid);
    } catch {
      // The process ended while it was read.
    }
  }
  return nanos;
}

/**
 * The CPU (ns) a dev server's runtimes (its workerd processes) have used so far: a request's share,
 * apart from the time it waited. Steadier than a rate on a shared machine: it counts the runtime's
 * own work, whatever else runs.
 */
export function groupRuntimeCpuNs(group) {
  // No /proc (not Linux): nothing to read.
  if (!existsSync('/proc')) return undefined;
  return Object.entries(groupCpuNs(group)).reduce((sum, [name, ns]) => (name.startsWith('workerd ') ? sum + ns : sum), 0);
}
