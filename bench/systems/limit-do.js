// The limit through a Durable Object: the Worker hands the request to an object, which pipes the
// upstream's bytes back unparsed. The floor of any design that runs the turn in a Durable Object.
import { DurableObject } from 'cloudflare:workers';

export class Pipe extends DurableObject {
  async fetch(request) {
    const upstream = await fetch(`${this.env.UPSTREAM_URL}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: request.body });
    return new Response(upstream.body, { status: upstream.status, headers: { 'content-type': 'text/event-stream' } });
  }
}

export default {
  fetch(request, env) {
    return env.PIPE.getByName('bench').fetch(request);
  },
};
