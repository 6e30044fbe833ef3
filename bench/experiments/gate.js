// The storage-gate experiment (bench/experiments/README.md): the limit through a DO (a Durable
// Object that pipes the upstream's answer back), with what a turn does around its model request,
// one thing at a time, chosen by the path: `/plain` nothing; `/write1` one row stored before the
// request; `/write8` eight; `/writelater` eight, in the task after the request; `/busy` a
// millisecond of JavaScript after it. The object logs, every 100 requests of a kind, the mean time
// from the Worker's first line to the request, and from the request to the upstream's answer.
import { DurableObject } from 'cloudflare:workers';

const stats = {};
function note(kind, beforeMs, fetchMs) {
  const entry = (stats[kind] ??= { n: 0, before: 0, fetch: 0 });
  entry.n++;
  entry.before += beforeMs;
  entry.fetch += fetchMs;
  if (entry.n % 100 === 0) console.log(`GATE ${kind} to the request ${(entry.before / entry.n).toFixed(3)} ms, request to answer ${(entry.fetch / entry.n).toFixed(3)} ms, n=${entry.n}`);
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
    if (kind === 'write1') this.write(1);
    if (kind === 'write8') this.write(8);
    const requestedAt = performance.now();
    const answer = fetch(`${this.env.UPSTREAM_URL}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    if (kind === 'busy') for (const until = performance.now() + 1; performance.now() < until; );
    if (kind === 'writelater') {
      await new Promise((resolve) => setTimeout(resolve, 0));
      this.write(8);
    }
    const upstream = await answer;
    note(kind, requestedAt - startedAt, performance.now() - requestedAt);
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
