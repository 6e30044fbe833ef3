// The limit through a Durable Object: the Worker hands the request to an object, which pipes the
// upstream's bytes back unparsed. The floor of any design that runs the turn in a Durable Object;
// on a new object for each request, the floor of a new session's first turn. It uses the fastest
// way there is: an RPC call that returns the upstream's own (native) body, which workerd pumps
// across without JavaScript (an object's `fetch` answering a `Response` is slower, measured).
import { DurableObject } from 'cloudflare:workers';

export class Pipe extends DurableObject {
  async pipe(body) {
    const upstream = await fetch(`${this.env.UPSTREAM_URL}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    return upstream.body;
  }
}

export default {
  async fetch(request, env) {
    // `/new`: a new object for each request, as a new session's first turn has.
    const name = new URL(request.url).pathname === '/new' ? crypto.randomUUID() : 'bench';
    const body = await env.PIPE.getByName(name).pipe(await request.text());
    return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
  },
};
