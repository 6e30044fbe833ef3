// The least a turn of the turns API does (docs/turns-api.md), written as lean as we know how: the
// floor of any design that keeps this service's contract for a plain streamed turn, against which
// the first-event targets of issue 24 can be judged (bench/PROFILE.md, "The least a turn does").
//
// Before the model is asked, what every such design must do: route the request, read and check its
// body (a 400 for a bad one), hand it to the session's object, refuse a second turn while one runs
// (409), store the turn and its user messages in one transaction (a turn must survive its client,
// and a later request must see it), and send the model the session's history with the new messages
// (kept in memory, read from storage once per wake). Then: `turn_start` naming the turn (at once, as
// ours; with the first text event on `?late`; the model asked before the turn is stored on
// `?fetch-first`), one `text_delta` per delta with the turn's event numbers as ids, and at the end
// the answer, the turn's stop and its events stored in one transaction before `turn_stop` (a failed
// turn stores its stop). Left out, as more than the least: tools and permissions, users, usage
// reports and quotas, idempotency, branches, compaction, the other doors, followers and the event
// log's commits while a turn runs. On `?tools` it also offers the model the default agent's server
// tools (docs/demo-model.md), as any design that keeps the contract must on every turn,
// their JSON made once (bench/PROFILE.md, "Below JavaScript": the least with the contract's tools).
import { DurableObject } from 'cloudflare:workers';
import { convertTools } from '../../src/providers/openai/convert-messages';
import { defaultTools } from '../../src/tools/default-tools';
import { largeReads } from './large-reads.js';

const SYSTEM_PROMPT = 'You are a helpful assistant.';
// The tools as the OpenAI-compatible request names them, serialized once: a turn splices the string in.
const TOOLS_JSON = JSON.stringify(convertTools(defaultTools.specs()));
const encoder = new TextEncoder();
const sseEvent = (event, id, data) => `event: ${event}\nid: ${id}\ndata: ${JSON.stringify(data)}\n\n`;

export class Session extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec(`CREATE TABLE IF NOT EXISTS messages (seq INTEGER PRIMARY KEY, turn_id TEXT NOT NULL, role TEXT NOT NULL, content TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS turns (turn_id TEXT PRIMARY KEY, status TEXT NOT NULL, started_at INTEGER NOT NULL, stop_reason TEXT, usage TEXT, events TEXT)`);
    this.history = this.sql.exec('SELECT role, content FROM messages ORDER BY seq').toArray();
    this.running = false;
  }

  async turn(messages, model, { late, fetchFirst, tools }) {
    if (this.running) return { busy: true };
    this.running = true;
    const turnId = crypto.randomUUID();
    const store = () =>
      this.ctx.storage.transactionSync(() => {
        this.sql.exec(`INSERT INTO turns (turn_id, status, started_at) VALUES (?, 'running', ?)`, turnId, Date.now());
        for (const { content } of messages) this.sql.exec(`INSERT INTO messages (turn_id, role, content) VALUES (?, 'user', ?)`, turnId, content);
      });
    // The model request waits for the writes made before it (the output gate), not for those after:
    // on `fetchFirst` it leaves first. Either way the turn is stored before any of its events leave.
    // `running` is set before the wait, so no other turn starts in it.
    if (!fetchFirst) store();
    this.history.push(...messages);
    const answer = fetch(`${this.env.UPSTREAM_URL}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: requestBody(model, this.history, tools),
    });
    // A write in the same task as the `fetch` holds it too (the request leaves when the task ends):
    // the writes wait for the next task (bench/PROFILE.md, "The model asked before the turn is stored").
    if (fetchFirst) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      store();
    }
    const { readable, writable } = new IdentityTransformStream();
    const writer = writable.getWriter();
    const events = [];
    const event = (name, data) => {
      events.push({ event: name, data });
      return sseEvent(name, events.length, data);
    };
    let head = event('turn_start', { turnId });
    if (!late) {
      void writer.write(encoder.encode(head));
      head = '';
    }
    answer
      .then((upstream) => this.stream(turnId, upstream, writer, { events, event, head }))
      .catch((error) => {
        const stopEvent = event('turn_stop', { stopReason: 'error', turnId, error: { code: 'upstream_error', message: String(error) } });
        this.sql.exec(`UPDATE turns SET status = 'finished', stop_reason = 'error', events = ? WHERE turn_id = ?`, JSON.stringify(events), turnId);
        return writer.write(encoder.encode(stopEvent));
      })
      .finally(() => {
        this.running = false;
        return writer.close().catch(() => {});
      });
    return { stream: readable };
  }

  async stream(turnId, upstream, writer, { events, event, head }) {
    if (!upstream.ok) throw new Error(`upstream ${upstream.status}`);
    const decoder = new TextDecoder();
    let carry = '';
    let text = '';
    let stop = 'end_turn';
    let usage = { inputTokens: 0, outputTokens: 0 };
    for await (const bytes of largeReads(upstream.body)) {
      const chunks = (carry + decoder.decode(bytes, { stream: true })).split('\n\n');
      carry = chunks.pop() ?? '';
      let out = head;
      head = '';
      for (const chunk of chunks) {
        if (!chunk.startsWith('data: ') || chunk === 'data: [DONE]') continue;
        const data = JSON.parse(chunk.slice(6));
        const choice = data.choices?.[0];
        if (choice?.delta?.content) {
          text += choice.delta.content;
          out += event('text_delta', { delta: choice.delta.content });
        }
        if (choice?.finish_reason === 'length') stop = 'max_tokens';
        if (data.usage) usage = { inputTokens: data.usage.prompt_tokens, outputTokens: data.usage.completion_tokens };
      }
      if (out) await writer.write(encoder.encode(out));
    }
    const answer = { role: 'assistant', content: text };
    const stopEvent = event('turn_stop', { stopReason: stop, turnId, usage });
    this.ctx.storage.transactionSync(() => {
      this.sql.exec(`INSERT INTO messages (turn_id, role, content) VALUES (?, 'assistant', ?)`, turnId, text);
      this.sql.exec(`UPDATE turns SET status = 'finished', stop_reason = ?, usage = ?, events = ? WHERE turn_id = ?`, stop, JSON.stringify(usage), JSON.stringify(events), turnId);
    });
    this.history.push(answer);
    await writer.write(encoder.encode(stopEvent));
  }
}

function requestBody(model, history, tools) {
  const json = JSON.stringify({ model, stream: true, stream_options: { include_usage: true }, messages: [{ role: 'system', content: SYSTEM_PROMPT }, ...history] });
  return tools ? `${json.slice(0, -1)},"tools":${TOOLS_JSON}}` : json;
}

const problem = (status, code, message) => Response.json({ error: { code, message } }, { status });

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const route = /^\/sessions\/([A-Za-z0-9_-]{1,128})\/turns$/.exec(url.pathname);
    if (!route || request.method !== 'POST') return problem(404, 'not_found', 'No such route.');
    let body;
    try {
      body = JSON.parse(await request.text());
    } catch {
      return problem(400, 'invalid_json', 'The body is not JSON.');
    }
    const messages = body?.messages;
    const valid =
      body?.stream === 'delta' &&
      typeof body.model === 'string' &&
      Array.isArray(messages) &&
      messages.length > 0 &&
      messages.every((message) => message?.role === 'user' && typeof message.content === 'string');
    if (!valid) return problem(400, 'invalid_request', 'A turn needs stream "delta", a model, and user messages with text content.');
    const model = body.model.replace(/^openai:/, '');
    const options = { late: url.searchParams.has('late'), fetchFirst: url.searchParams.has('fetch-first'), tools: url.searchParams.has('tools') };
    const turn = await env.SESSION.getByName(route[1]).turn(messages.map(({ content }) => ({ role: 'user', content })), model, options);
    if (turn.busy) return problem(409, 'session_busy', 'A turn is running on this session.');
    return new Response(turn.stream, { headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } });
  },
};
