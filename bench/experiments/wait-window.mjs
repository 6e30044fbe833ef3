// The wait for the model from the scheduler's side, read from a `perf record` of a dev server's
// runtimes (`native.mjs` with `WINDOW=1`, bench/experiments/README.md). For each turn, on the
// runtime's first thread (the one that runs the Worker, the objects and the pipes: in the runtime
// whose first thread syncs to disk, not the dev server's proxy), the window from the model
// request's first write to the answer's first read, and where the thread's time in it went.
import { execFileSync } from 'node:child_process';

/** What `perf record` must trace for `waitWindows`, and how often it samples the CPU. */
export const WINDOW_EVENTS = ['cpu-clock', 'sched:sched_switch', 'syscalls:sys_enter_read', 'syscalls:sys_exit_read', 'syscalls:sys_enter_write', 'syscalls:sys_enter_writev', 'syscalls:sys_enter_epoll_pwait', 'syscalls:sys_exit_epoll_pwait', 'syscalls:sys_enter_fsync'];
export const WINDOW_HZ = 20_000;

/**
 * Ms a turn: the window, the thread's CPU in it (its samples), its time waiting for events (asleep
 * in `epoll_pwait`), blocked on the disk, asleep otherwise, and runnable but not running, by the
 * process that ran instead (`preempted`, largest first). `file` is what `perf record` wrote.
 */
export function waitWindows(file) {
  return account(windows(firstThread(events(file))));
}

/** The recorded events, one `{ pid, tid, t (s), event, trace }` each, in time order per thread. */
function events(file) {
  const text = execFileSync('perf', ['script', '-i', file, '-F', 'pid,tid,time,event,trace'], { encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'ignore'] });
  const rows = [];
  for (const line of text.split('\n')) {
    const row = /^\s*(\d+)\/(\d+)\s+([\d.]+):\s+(?:\d+\s+)?([\w:-]+):\s*(.*)$/.exec(line);
    if (row) rows.push({ pid: row[1], tid: row[2], t: Number(row[3]), event: row[4].replace(/^\w+:/, ''), trace: row[5] });
  }
  return rows;
}

/** The events of the first thread that syncs to disk most: the one that runs the objects. */
function firstThread(rows) {
  const syncs = new Map();
  for (const row of rows) if (row.event === 'sys_enter_fsync' && row.pid === row.tid) syncs.set(row.tid, (syncs.get(row.tid) ?? 0) + 1);
  const tid = mostOf(syncs);
  return rows.filter((row) => row.tid === tid);
}

function mostOf(counts) {
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
}

const fdOf = (row) => parseInt(/fd: (\w+)/.exec(row.trace)[1], 16);
/** A read that returned data (not an error such as `EAGAIN`, which perf shows as a huge unsigned number). */
const gotData = (row) => row.event === 'sys_exit_read' && parseInt(row.trace, 16) > 0 && parseInt(row.trace, 16) < 2 ** 62;

/**
 * Each turn's events from the model request's first write to the answer's first read. The client's
 * connection is the one the thread reads data from most (each turn's request comes on it); a turn
 * starts with such a read, and its first write of more than a wakeup's 8 bytes to any other
 * descriptor but stdout and stderr is the model request, on the connection its answer comes back on.
 */
function windows(thread) {
  const reads = new Map();
  let fd;
  for (const row of thread) {
    if (row.event === 'sys_enter_read') fd = fdOf(row);
    else if (gotData(row)) reads.set(fd, (reads.get(fd) ?? 0) + 1);
  }
  const client = mostOf(reads);
  const found = [];
  let state = 'idle';
  let open;
  for (let i = 0; i < thread.length; i++) {
    const row = thread[i];
    if (row.event === 'sys_enter_read') fd = fdOf(row);
    if (gotData(row) && fd === client && state !== 'waiting') state = 'turn';
    else if (state === 'turn' && (row.event === 'sys_enter_write' || row.event === 'sys_enter_writev')) {
      const target = fdOf(row);
      const bytes = row.event === 'sys_enter_writev' ? Infinity : parseInt(/count: (\w+)/.exec(row.trace)[1], 16);
      if (target > 2 && target !== client && bytes > 8) [state, open] = ['waiting', { start: i, fd: target }];
    } else if (state === 'waiting' && gotData(row) && fd === open.fd) {
      found.push(thread.slice(open.start, i + 1));
      state = 'idle';
    }
  }
  return found;
}

function account(found) {
  const sums = { window: 0, cpu: 0, waiting: 0, disk: 0, asleep: 0 };
  const preempted = new Map();
  for (const window of found) {
    sums.window += (window.at(-1).t - window[0].t) * 1e3;
    let polling = false;
    for (let i = 0; i < window.length - 1; i++) {
      const row = window[i];
      if (row.event === 'cpu-clock') sums.cpu += 1e3 / WINDOW_HZ;
      else if (row.event === 'sys_enter_epoll_pwait') polling = true;
      else if (row.event === 'sys_exit_epoll_pwait') polling = false;
      else if (row.event === 'sched_switch') {
        // Off the CPU until the thread's next event: within a sample's 50 µs once it runs again.
        const off = (window[i + 1].t - row.t) * 1e3;
        const state = /prev_state=(\S+)/.exec(row.trace)[1];
        if (state.startsWith('R')) {
          const next = /next_comm=(.+?) next_pid=/.exec(row.trace)[1];
          preempted.set(next, (preempted.get(next) ?? 0) + off);
        } else if (state.startsWith('D')) sums.disk += off;
        else if (polling) sums.waiting += off;
        else sums.asleep += off;
      }
    }
  }
  const n = found.length;
  if (n === 0) throw new Error('wait-window: no turn found whose model request and answer the trace shows (were the tracepoints recorded? perf needs root for them)');
  return {
    turns: n,
    ...Object.fromEntries(Object.entries(sums).map(([key, ms]) => [key, ms / n])),
    preempted: [...preempted].map(([comm, ms]) => [comm, ms / n]).sort((a, b) => b[1] - a[1]),
  };
}
