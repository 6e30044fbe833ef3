/**
 * A stand-in for the model servers, in Node, on 127.0.0.1: OpenAI-compatible Chat Completions at
 * `/v1/chat/completions` and the Anthropic Messages API at `/v1/messages`. It replays the recorded
 * real streams of `test/fixtures/upstream/` and plays a few scripted behaviours, chosen by the
 * request's `model`:
 *   replay/<dir>/<file>  the recording (or, after a tool result, the plain text recording)
 *   cut/<dir>/<file>     the first half of the recording, then the connection is destroyed
 *   status/<code>        an HTTP error with a JSON error body
 *   hang                 never answers; silent: sends headers, then nothing; stall: one chunk, then nothing
 *   flaky/<n>            503 (Retry-After: 0) to the first n requests of a conversation, then text
 *   script/calc          calls `calculator` {"expression":"6*7"}, then answers with the result
 *   script/count         calls `count_to` {"to":3,"delayMs":150} (a tool that takes its time), then answers "Counted."
 *   script/invent        calls a tool it was not offered, `multi_tool_use.parallel`, then answers with the result
 *   script/strict        a model whose chat template takes one system message first, then user and
 *                        assistant in turn (tool calls and results unread), and refuses anything else
 *                        as vLLM does (Mistral's template)
 *   script/mistral       as script/calc, as Mistral's API: its call's id is nine letters and digits,
 *                        and it refuses any other id in a call or a result, and an assistant message
 *                        with neither content nor tool calls
 *   script/think         a reasoning model that spends its whole output thinking: reasoning, then the
 *                        finish reason "length", with no answer
 *   script/gemini        as script/calc, as Gemini 3 through its OpenAI-compatible endpoint: two
 *                        parallel calls, each whole and without an index, the first with a thought
 *                        signature, finished as "stop"; it refuses an earlier call without a signature
 *   script/azure         answers "ok", and refuses `stream_options` as Azure OpenAI does
 *   script/notools       answers "ok", and refuses any tools, as vLLM started without a tool-call parser
 *   script/ollama-notools the same, in Ollama's words for a model without tool use
 *   script/openrouter-notools the same, as OpenRouter says it (404) where no provider takes tools
 *   script/gateway       answers "ok", and refuses a tool schema with `additionalProperties` or
 *                        `$schema` as Gemini's API behind a translating gateway does, each by name
 *   script/nodone        answers "ok" with its finish reason and usage, and ends its body without
 *                        `data: [DONE]`, as some servers do (llama.cpp's forks, text-generation-webui)
 *   script/reasoning     answers "ok", and refuses `max_tokens` and a temperature but 1 as OpenAI's
 *                        reasoning models do
 *   script/slow          streams ten text chunks 150 ms apart
 *   script/echo          a model with a 3,000-token window (a prompt over it is a 400
 *                        context_length_exceeded): answers "ok", or calls `calculator` when asked to "calc",
 *                        and summarises when asked to (the summary prompt)
 *   script/overflow      answers 400 context_length_exceeded, but to the summary prompt
 *   script/llamacpp      as script/echo with a 2,000-token window the deployment does not know (not in
 *                        MODEL_CONTEXT_TOKENS), refused in llama.cpp's words with its `n_ctx`
 *   script/llamacpp-stream as script/llamacpp, its refusal the one event of a stream answered 200
 *   script/calc          (Anthropic too) a `calculator` tool_use, then after the result a text answer
 *   script/loop          (Anthropic) calls `calculator` again after every result, unless the request
 *                        says it may not (`tool_choice: {type: "none"}`): then it answers
 *   script/surrogate     (Anthropic) as script/calc, its expression ending in a lone surrogate's escape
 *   script/blank         (Anthropic) as script/calc, with a text block of "\n\n" before its tool_use
 *   script/claude-3-haiku (Anthropic) as script/calc, with Claude 3 Haiku's output limit: it refuses
 *                        `max_tokens` over 4096 in the API's words
 *   script/whole         (Anthropic) as script/calc, as some Anthropic-compatible servers and proxies
 *                        stream it: each block whole at its start (the call's input, the answer's
 *                        text), and no delta after
 *   script/pause         (Anthropic) stops with `pause_turn`, then finishes when called again with its
 *                        paused answer last
 *   script/overloaded    (Anthropic) a text delta, then an `overloaded_error` event: scripted, since no
 *                        real recording of a mid-stream Anthropic error exists (fixtures SOURCES.md)
 * Like the real Messages API, the Anthropic stand-in refuses (`400 invalid_request_error`) a body
 * that escapes a lone UTF-16 surrogate (its strict JSON parser: "no low surrogate in string"), a
 * request without messages, a history of tool calls without tools, a tool schema with `oneOf`,
 * `anyOf` or `allOf` at its top, a text block that is empty, a
 * message whose text is all whitespace, a final assistant message that ends in whitespace, and
 * thinking whose signature another model made (the model a replayed recording names;
 * `anthropicRefusal`).
 * Both refuse, in their words, tool calls and results that do not pair: calls not answered in the
 * next message (or run of tool messages), a result that answers no call of the message before it.
 * The OpenAI stand-in refuses, as OpenAI does, a tool call id over 40 characters, an earlier call
 * to a function whose name has other characters than letters, digits, "_" and "-", `max_tokens`
 * over 16,384 (GPT-4o's), more than 128 tools, a tool description over 1,024 characters, and a
 * tool schema without `properties` at its top, with an array without `items`, or with a property
 * that is no schema; replaying DeepSeek's reasoner, an earlier assistant message with tool calls but
 * no `reasoning_content`, as DeepSeek's thinking mode does. The Anthropic stand-in refuses a tool
 * schema with a property that is no schema too, and `max_tokens` over 4096 for script/claude-3-haiku.
 * Both refuse, as the real APIs do (`400 invalid_request_error`), a request with an image linked
 * from a URL they cannot download (here, any URL with `/expired/` in its path), or an inline image
 * whose bytes are no PNG, JPEG, GIF or WebP.
 * The Anthropic stand-in refuses a request over `ANTHROPIC_MAX_REQUEST_BYTES` (`413
 * request_too_large`), a scale model of the real API's 32 MB (`standin-limits.ts`).
 * (The refusals, in each server's words: `upstream-refusals.ts`; what the scripted models stream:
 * `upstream-scripts.ts`; the recordings: `recordings.ts`.)
 * Every request body is kept, with its size in bytes (`bytes`), its prompt's size as the stand-in
 * counts it, and the connection it came on (`socket`, numbered), each long run of base64 written as
 * its length (`<base64: N characters>`); `GET /__log` returns them, for tests of what the Worker sent, and `GET
 * /__sockets` the numbers of the connections still open (`connections.ts`).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { numberConnections } from './connections.ts';
import { fixtureNames, readFixture } from './recordings.ts';
import { ANTHROPIC_MAX_REQUEST_BYTES } from './standin-limits.ts';
import { requestRefusal, type ChatBody } from './upstream-refusals.ts';
import { anthropicScript, chunk, openaiScript, promptTokens } from './upstream-scripts.ts';

export const SCRIPTED_MODELS = [
  'status/500',
  'status/429',
  'hang',
  'silent',
  'stall',
  'flaky/1',
  'flaky/3',
  'script/calc',
  'script/count',
  'script/invent',
  'script/strict',
  'script/mistral',
  'script/gemini',
  'script/azure',
  'script/gateway',
  'script/notools',
  'script/ollama-notools',
  'script/openrouter-notools',
  'script/nodone',
  'script/reasoning',
  'script/think',
  'script/slow',
  'script/echo',
  'script/overflow',
  'script/llamacpp',
  'script/llamacpp-stream',
];

export const ANTHROPIC_SCRIPTED_MODELS = ['status/529', 'script/overloaded', 'script/calc', 'script/loop', 'script/surrogate', 'script/blank', 'script/whole', 'script/pause', 'script/claude-3-haiku'];

/** The `MODELS` allow-list the tests run with. */
export function upstreamModels(): string[] {
  const fixtures = fixtureNames();
  const anthropic = fixtures.filter((name) => name.startsWith('anthropic/'));
  const openai = fixtures.filter((name) => !name.startsWith('anthropic/'));
  return [
    ...openai.map((name) => `openai:replay/${name}`),
    ...openai.map((name) => `openai:cut/${name}`),
    ...SCRIPTED_MODELS.map((name) => `openai:${name}`),
    ...anthropic.map((name) => `anthropic:replay/${name}`),
    ...anthropic.map((name) => `anthropic:cut/${name}`),
    ...ANTHROPIC_SCRIPTED_MODELS.map((name) => `anthropic:${name}`),
    ...['text', 'native-tool', 'openai-tools', 'client-tool', 'cut', 'unavailable', 'pieces', 'reasoning', 'whole'].map((name) => `workers-ai:stub/${name}`),
    'demo:small',
    'demo:budget',
  ];
}

export function startUpstream(): Promise<{ server: Server; url: string }> {
  const log: unknown[] = [];
  const failures = new Map<string, number>();
  const server = createServer((request, response) => {
    if (connections.served(request, response)) return;
    handle(request, response, log, failures, connections.of(request.socket)).catch((error) => {
      console.error('upstream stand-in failed', error);
      response.destroy();
    });
  });
  const connections = numberConnections(server);
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      resolve({ server, url: `http://127.0.0.1:${port}` });
    });
  });
}

async function handle(request: IncomingMessage, response: ServerResponse, log: unknown[], failures: Map<string, number>, socket: number): Promise<void> {
  if (request.method === 'GET' && request.url === '/__log') {
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(log));
    return;
  }
  const anthropic = request.url === '/v1/messages';
  if (request.method !== 'POST' || (request.url !== '/v1/chat/completions' && !anthropic)) {
    response.writeHead(404).end();
    return;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  const body = JSON.parse(text) as ChatBody;
  log.push({
    ...(text.length > LONG_BASE64 ? (JSON.parse(abbreviated(text)) as ChatBody) : body),
    bytes: Buffer.byteLength(text),
    authorization: request.headers.authorization ?? null,
    apiKey: request.headers['x-api-key'] ?? null,
    promptTokens: promptTokens(body),
    socket,
  });
  // A request the Worker aborts (a cancel, a timeout) shows in the log as `closedEarly`.
  response.on('close', () => {
    if (!response.writableFinished) log.push({ closedEarly: true, model: body.model, messages: body.messages });
  });
  if (anthropic && Buffer.byteLength(text) > ANTHROPIC_MAX_REQUEST_BYTES) {
    response.writeHead(413, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ type: 'error', error: { type: 'request_too_large', message: 'Request exceeds the maximum size' } }));
    return;
  }
  const refusal = requestRefusal(text, body, anthropic);
  if (refusal) {
    response.writeHead(400, { 'content-type': 'application/json' });
    const error = { type: 'invalid_request_error', message: refusal };
    response.end(JSON.stringify(anthropic ? { type: 'error', error } : { error }));
    return;
  }
  const last = body.messages.at(-1);
  const afterTool = anthropic
    ? Array.isArray(last?.content) && (last.content as { type: string }[]).some((block) => block.type === 'tool_result')
    : last?.role === 'tool';
  const [kind, ...rest] = body.model.split('/');
  const name = rest.join('/');

  switch (kind) {
    case 'replay':
      return sendSse(response, readFixture(afterTool ? (anthropic ? 'anthropic/claude-sonnet-4-text-ping' : 'openai/gpt-4o-text-usage') : name));
    case 'cut': {
      const text = readFixture(name);
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(text.slice(0, Math.floor(text.length / 2)));
      setTimeout(() => response.destroy(), 50);
      return;
    }
    case 'status':
      response.writeHead(Number(name), { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: 'secret upstream detail', type: 'server_error' } }));
      return;
    case 'hang':
      return; // never answers; the Worker's timeout must end the turn
    case 'silent':
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.flushHeaders();
      return;
    case 'flaky': {
      const conversation = JSON.stringify(body.messages);
      const failed = failures.get(conversation) ?? 0;
      if (failed < Number(name)) {
        failures.set(conversation, failed + 1);
        response.writeHead(503, { 'content-type': 'application/json', 'retry-after': '0' }).end('{"error":{"message":"overloaded"}}');
        return;
      }
      return sendSse(response, readFixture('openai/gpt-4o-text-usage'));
    }
    case 'stall':
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(chunk({ content: 'I begin' }));
      return;
    case 'script':
      return anthropic ? anthropicScript(name, body, afterTool, response) : openaiScript(name, body, afterTool, response);
    default:
      response.writeHead(400).end();
  }
}

/** Base64 this long is kept in the log by its length alone: every test reads the whole log. */
const LONG_BASE64 = 64 * 1024;

/** A request's JSON with each long run of base64 (an image's bytes) written as `<base64: N characters>`. */
function abbreviated(text: string): string {
  return text.replace(new RegExp(`[A-Za-z0-9+/=]{${LONG_BASE64},}`, 'g'), (run) => `<base64: ${run.length} characters>`);
}

function sendSse(response: ServerResponse, text: string): void {
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  response.end(text);
}
