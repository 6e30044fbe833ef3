// The physical limit: a Worker that forwards the upstream's stream to the client untouched, unparsed.
export default {
  async fetch(request, env) {
    const upstream = await fetch(`${env.UPSTREAM_URL}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: request.body,
    });
    return new Response(upstream.body, { status: upstream.status, headers: { 'content-type': 'text/event-stream' } });
  },
};
