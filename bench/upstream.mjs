// The benchmarks' stand-in upstream: an OpenAI-compatible Chat Completions server in Node that
// streams a text answer at once (or at a set pace). The model's name says how: `deltas-<n>` streams
// n text deltas as fast as it can, `paced-<n>-<ms>` one every ms; `tool-then-<n>[-<ms>]` first calls
// the built-in `current_time` tool (a request whose last message is not a tool's result), then
// answers as `deltas` or `paced` do. Loopback only.
import { createServer } from 'node:http';

const chunk = (data) => `data: ${JSON.stringify(data)}\n\n`;

export async function startBenchUpstream() {
  // When the last request reached the handler (its headers), when its body had all come (the runtime
  // writes a request's body after its headers, in a write of its own), and when it was answered
  // (`performance.now()` of this process, which is the client's too): bench/experiments/arrive.mjs
  // reads them.
  const last = { arrived: 0, received: 0, answered: 0 };
  const server = createServer(async (request, response) => {
    last.arrived = performance.now();
    let body = '';
    for await (const part of request) body += part;
    last.received = performance.now();
    if (request.method !== 'POST' || !request.url.endsWith('/chat/completions')) return void response.writeHead(404).end();
    const { model = 'deltas-5', messages = [] } = JSON.parse(body || '{}');
    const [, tool, count = '5', pace = '0'] = /^(?:deltas|paced|(tool-then))-(\d+)(?:-(\d+))?$/.exec(model) ?? [];
    const n = Number(count);
    const ms = Number(pace);
    last.answered = performance.now();
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const base = { id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1, model };
    response.write(chunk({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }));
    if (tool && messages.at(-1)?.role !== 'tool') {
      if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
      const call = { index: 0, id: `call_${messages.length}`, type: 'function', function: { name: 'current_time', arguments: '{}' } };
      response.write(chunk({ ...base, choices: [{ index: 0, delta: { tool_calls: [call] }, finish_reason: null }] }));
      response.write(chunk({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] }));
      response.write(chunk({ ...base, choices: [], usage: { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 } }));
      return void response.end('data: [DONE]\n\n');
    }
    // At once: deltas go out in batches of a write each (one write per delta would measure the
    // loopback's per-packet cost, not the systems); paced: one write per delta.
    let batch = '';
    for (let index = 0; index < n; index++) {
      if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
      batch += chunk({ ...base, choices: [{ index: 0, delta: { content: `w${index % 10} ` }, finish_reason: null }] });
      if (ms > 0 || batch.length > 16_384) {
        response.write(batch);
        batch = '';
      }
    }
    if (batch) response.write(batch);
    response.write(chunk({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }));
    response.write(chunk({ ...base, choices: [], usage: { prompt_tokens: 10, completion_tokens: n, total_tokens: 10 + n } }));
    response.end('data: [DONE]\n\n');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, last, close: () => new Promise((resolve) => server.close(resolve)) };
}

/**
 * The service's configuration against the stand-in: its models (a short answer and one of `deltas`
 * deltas), no rate limiter (a call to another object on every POST) and no title side calls.
 */
export function serviceVars(upstreamUrl, deltas) {
  return {
    MODEL: 'openai:deltas-5',
    // paced-5-10: ten milliseconds to each delta, a model's time to its first token; tool-then-5 and
    // tool-then-5-10: a tool's step first, as fast or at that pace (bench/experiments/arrive.mjs).
    MODELS: `openai:deltas-5,openai:deltas-${deltas},openai:paced-5-10,openai:tool-then-5,openai:tool-then-5-10`,
    OPENAI_BASE_URL: `${upstreamUrl}/v1`,
    OPENAI_API_KEY: 'bench',
    RATE_LIMIT_PER_MINUTE: '0',
    TITLES: 'off',
  };
}
