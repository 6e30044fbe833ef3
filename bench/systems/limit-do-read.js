// The limit of a design that reads the model's answer: a Durable Object that, like "limit through a
// DO", hands each request to an object which calls the upstream, but reads the stream in JavaScript,
// as any agent must (to store the answer, to find tool calls): it splits the SSE events, parses each
// chunk's JSON and writes one SSE event per text delta, a network read's events in one write. No
// validation, no loop: what is left is the cost of touching each event at all. On `/store` (and
// `/store/new`) it also stores the request before it calls the model, as a design that keeps its turns
// must: the least such a design writes (one row), so the storage's commit is on the clock as it is
// for ours (an object's outgoing messages wait for the writes before them to be stored). On
// `/store/early` (bench/experiments/arrive.mjs) it also streams back before the model answers. It
// reads the answer in reads as large as what has arrived, as ours does: the network's own chunks are
// small, and each that enters JavaScript costs more than its bytes. On `/touch` and `/touch/large`
// (bench/experiments/reading.mjs) it only brings the answer into JavaScript, in the network's chunks
// or in large reads, and writes it on unparsed: the least any reading costs.
import { DurableObject } from 'cloudflare:workers';
import { largeReads } from './large-reads.js';

export class Reader extends DurableObject {
  async read(body, store = false, early = false, touch = undefined) {
    // `store`: the request is stored before the model is called, as a design that keeps its turns
    // must (the least it can write: one row, in a table the object creates when it first needs it).
    if (store) {
      this.ctx.storage.sql.exec('CREATE TABLE IF NOT EXISTS turns (id INTEGER PRIMARY KEY, request TEXT NOT NULL)');
      this.ctx.storage.sql.exec('INSERT INTO turns (request) VALUES (?)', body);
    }
    const answer = fetch(`${this.env.UPSTREAM_URL}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    // `early`: the stream goes back, with a first event saying the turn started, before the model
    // answers, as ours tells its client the turn (its id) at once; otherwise once the answer came.
    if (early) {
      const { readable, writable } = new IdentityTransformStream();
      const writer = writable.getWriter();
      void writer.write(new TextEncoder().encode('event: turn_start\nid: 0\ndata: {}\n\n'));
      answer.then((upstream) => relay(upstream.body, writer)).catch((error) => writer.abort(error));
      return readable;
    }
    const upstream = await answer;
    const { readable, writable } = new IdentityTransformStream();
    if (touch) void pass(touch === 'large' ? largeReads(upstream.body) : upstream.body, writable.getWriter());
    else void relay(upstream.body, writable.getWriter());
    return readable;
  }
}

async function relay(body, writer) {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let carry = '';
  let seq = 0;
  for await (const bytes of largeReads(body)) {
    const events = (carry + decoder.decode(bytes, { stream: true })).split('\n\n');
    carry = events.pop() ?? '';
    let out = '';
    for (const event of events) {
      if (!event.startsWith('data: ') || event === 'data: [DONE]') continue;
      const content = JSON.parse(event.slice(6)).choices?.[0]?.delta?.content;
      if (content) out += `event: text_delta\nid: ${++seq}\ndata: ${JSON.stringify({ delta: content })}\n\n`;
    }
    if (out) await writer.write(encoder.encode(out));
  }
  await writer.close();
}

/** Writes each chunk on as it came (a copy: a large read's buffer is read into again). */
async function pass(chunks, writer) {
  for await (const bytes of chunks) await writer.write(bytes.slice());
  await writer.close();
}

export default {
  async fetch(request, env) {
    // `/new`: a new object for each request, as a new session's first turn has; `/store` and
    // `/store/new`: the object stores the request before it calls the model; `/store/early` (and
    // `/store/early/new`) also streams back before the model answers.
    const path = new URL(request.url).pathname;
    const name = path.endsWith('/new') ? crypto.randomUUID() : 'bench';
    const touch = path === '/touch/large' ? 'large' : path === '/touch' ? 'chunks' : undefined;
    const body = await env.READER.getByName(name).read(await request.text(), path.startsWith('/store'), path.startsWith('/store/early'), touch);
    return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
  },
};
