// The storage-gate experiment (bench/experiments/README.md): the limit through a DO (a Durable
// Object that pipes the upstream's answer back), with what a turn does around its model request,
// one thing at a time, chosen by the path: `/plain` nothing; `/write1` one row stored before the
// request; `/write8` eight; `/writeafter` eight, right after the request, in the same task;
// `/writelater` eight, in the task after the request; `/busy` a millisecond of JavaScript after it;
// `/write1busy` one row before and the millisecond after; `/write1yield` the same, with a timer's
// turn of the event loop between the request and the millisecond. The object logs, every 100
// requests of a kind, the mean time from the Worker's first line to the request, from the request
// to the upstream's answer, and from the request to the commit of its writes (`storage.sync()`).
import { DurableObject } from 'cloudflare:workers';

const stats = {};
function note(kind, beforeMs, fetchMs, commitMs) {
  const entry = (stats[kind] ??= { n: 0, before: 0, fetch: 0, commit: 0 });
  entry.n++;
  entry.before += beforeMs;
  entry.fetch += fetchMs;
  entry.commit += commitMs;
  if (entry.n % 100 === 0) {
    console.log(`GATE ${kind} to the request ${(entry.before / entry.n).toFixed(3)} ms, request to answer ${(entry.fetch / entry.n).toFixed(3)} ms, request to commit ${(entry.commit / entry.n).toFixed(3)} ms, n=${entry.n}`);
  }
}

export class Pipe extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    ctx.storage.sql.exec('CREATE TABLE IF NOT EXISTS rows (id INTEGER PRIMARY KEY, value TEXT)');
  }

  write(count) {
    for (let i = 0; i < count; i++) this.ctx.storage.sql.exec('INSERT INTO rows (value) VALUES (?)', 'x'.repeat(200));
  }

  async pipe(body, startedAt, kind) {
    if (kind === 'write1' || kind === 'write1busy' || kind === 'write1yield') this.write(1);
    if (kind === 'write8') this.write(8);
    const requestedAt = performance.now();
    const answer = fetch(`${this.env.UPSTREAM_URL}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    if (kind === 'writeafter') this.write(8);
    if (kind === 'write1yield') await new Promise((resolve) => setTimeout(resolve, 0));
    if (kind === 'busy' || kind === 'write1busy' || kind === 'write1yield') for (const until = performance.now() + 1; performance.now() < until; );
    if (kind === 'writelater') {
      await new Promise((resolve) => setTimeout(resolve, 0));
      this.write(8);
    }
    const committed = this.ctx.storage.sync().then(() => performance.now() - requestedAt);
    const upstream = await answer;
    note(kind, requestedAt - startedAt, performance.now() - requestedAt, await committed);
    return upstream.body;
  }
}

export default {
  async fetch(request, env) {
    const startedAt = performance.now();
    const kind = new URL(request.url).pathname.slice(1) || 'plain';
    const body = await env.PIPE.getByName('gate').pipe(await request.text(), startedAt, kind);
    return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
  },
};
