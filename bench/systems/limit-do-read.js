// The limit of a design that reads the model's answer: a Durable Object that, like "limit through a
// DO", hands each request to an object which calls the upstream, but reads the stream in JavaScript,
// as any agent must (to store the answer, to find tool calls): it splits the SSE events, parses each
// chunk's JSON and writes one SSE event per text delta, a network read's events in one write. No
// storage, no validation, no loop: what is left is the cost of touching each event at all.
import { DurableObject } from 'cloudflare:workers';

export class Reader extends DurableObject {
  async read(body) {
    const upstream = await fetch(`${this.env.UPSTREAM_URL}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const { readable, writable } = new IdentityTransformStream();
    void relay(upstream.body, writable.getWriter());
    return readable;
  }
}

async function relay(body, writer) {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let carry = '';
  let seq = 0;
  for await (const bytes of body) {
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

export default {
  async fetch(request, env) {
    // `/new`: a new object for each request, as a new session's first turn has.
    const name = new URL(request.url).pathname === '/new' ? crypto.randomUUID() : 'bench';
    const body = await env.READER.getByName(name).read(await request.text());
    return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
  },
};
