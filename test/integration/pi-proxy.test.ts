/**
 * `POST /api/stream` (docs/pi-and-agui.md), the model proxy of pi-agent-core's `streamProxy`: its
 * events on the demo model and on recorded upstream streams, the rules the real client imposes
 * (`{"error": "<sentence>"}` before the stream, an `error` event after it, `done`/`error` last), the
 * request's `baseUrl` never fetched, only pi's tools offered. The real client drives it in
 * `test/clients/pi-agent.clients.test.ts`.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { callWorker, fetchWorker } from '../helpers/api';
import { mint, SECRET } from '../helpers/tokens';
import { readUntil } from '../helpers/read-until';
import { abortedWith, sentWith } from '../helpers/upstream-log';

const piModel = (provider: string, id: string) => ({
  id,
  name: id,
  api: 'openai-completions',
  provider,
  // Never fetched: the deployment's own upstream is used.
  baseUrl: 'http://127.0.0.1:9/never',
  reasoning: false,
  input: ['text'],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 128000,
  maxTokens: 4096,
  headers: { 'x-evil': '1' },
});
const userMessage = (text: string) => ({ role: 'user', content: text, timestamp: Date.now() });

function proxy(body: unknown, init: RequestInit = {}): Promise<Response> {
  return fetchWorker('/api/stream', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), ...init });
}

/** The `data: ` lines, as pi's client reads them (it reads nothing else). */
async function dataLines(response: Response): Promise<any[]> {
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const text = await response.text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)));
}

describe('POST /api/stream', () => {
  it('streams one model call as pi proxy events, start first and done last', async () => {
    const events = await dataLines(await proxy({ model: piModel('demo', 'demo'), context: { systemPrompt: 'Be brief.', messages: [userMessage('hello')] } }));
    const types = events.map((event) => event.type).filter((type, index, all) => type !== all[index - 1] || !type.endsWith('_delta'));
    expect(types).toEqual(['start', 'thinking_start', 'thinking_delta', 'thinking_end', 'text_start', 'text_delta', 'text_end', 'done']);
    expect(events.find((e) => e.type === 'text_start')).toEqual({ type: 'text_start', contentIndex: 1 });
    const done = events.at(-1);
    expect(done).toEqual({
      type: 'done',
      reason: 'stop',
      usage: { input: expect.any(Number), output: expect.any(Number), cacheRead: 0, cacheWrite: 0, totalTokens: expect.any(Number), cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    });
    expect(events.filter((e) => e.type === 'text_delta').map((e) => e.delta).join('')).toContain('hello');
  });

  it('offers only the tools pi sends: a call streams with its id and name, and ends the call with toolUse', async () => {
    const tools = [{ name: 'echo', description: 'Echo a text.', parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }];
    const events = await dataLines(await proxy({ model: piModel('demo', 'demo'), context: { messages: [userMessage('call echo {"text":"hi"}')], tools } }));
    const start = events.find((e) => e.type === 'toolcall_start');
    // The demo model thinks and speaks first: the call is the third block.
    expect(start).toEqual({ type: 'toolcall_start', contentIndex: 2, id: expect.any(String), toolName: 'echo' });
    const args = events.filter((e) => e.type === 'toolcall_delta').map((e) => e.delta).join('');
    expect(JSON.parse(args)).toEqual({ text: 'hi' });
    expect(events.filter((e) => e.type === 'toolcall_end')).toEqual([{ type: 'toolcall_end', contentIndex: 2 }]);
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'toolUse' });

    // The service's own server tools are never offered here: the demo model finds no calculator.
    const plain = await dataLines(await proxy({ model: piModel('demo', 'demo'), context: { messages: [userMessage('calculate 1+1')] } }));
    expect(plain.some((e) => e.type === 'toolcall_start')).toBe(false);
    expect(plain.at(-1)).toMatchObject({ type: 'done', reason: 'stop' });
  });

  it('sends pi’s context to the deployment’s upstream (never the request’s baseUrl), with temperature and maxTokens', async () => {
    const marker = `pi-${crypto.randomUUID()}`;
    const context = {
      systemPrompt: 'sys',
      messages: [
        userMessage(marker),
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'checking' },
            { type: 'toolCall', id: 'call_pi_1', name: 'lookup', arguments: { q: 'x' } },
          ],
          api: 'openai-completions',
          provider: 'openai',
          model: 'replay/openai/gpt-4o-text-usage',
          usage: {},
          stopReason: 'toolUse',
          timestamp: 1,
        },
        { role: 'toolResult', toolCallId: 'call_pi_1', toolName: 'lookup', content: [{ type: 'text', text: 'found' }], isError: false, timestamp: 2 },
      ],
      tools: [{ name: 'lookup', description: 'Look up.', parameters: { type: 'object', properties: { q: { type: 'string' } } } }],
    };
    const events = await dataLines(
      await proxy({ model: piModel('openai', 'replay/openai/gpt-4o-text-usage'), context, options: { temperature: 0.2, maxTokens: 321 } }),
    );
    expect(events[0]).toEqual({ type: 'start' });
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'stop' });
    const [sent] = await sentWith(marker);
    expect(sent).toMatchObject({ temperature: 0.2, max_tokens: 321 });
    expect(sent.messages).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: marker },
      { role: 'assistant', content: 'checking', tool_calls: [{ id: 'call_pi_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } }] },
      { role: 'tool', tool_call_id: 'call_pi_1', content: 'found' },
    ]);
    expect(sent.tools.map((tool: any) => tool.function.name)).toEqual(['lookup']);
  });

  it('sends a tool call id OpenAI would refuse as too long under a short name, the same for the call and its result', async () => {
    const marker = `pi-${crypto.randomUUID()}`;
    // As pi writes the ids of OpenAI's Responses API: the call's id and its item's, 81 characters.
    const longId = 'call_kT2vQ3mYx9LpR8sW4nB6cD1e|fc_68b1c2d3e4f5061728394a5b6c7d8e9f0a1b2c3d4e5f607182';
    const assistant = (id: string) => ({
      role: 'assistant',
      content: [{ type: 'toolCall', id, name: 'lookup', arguments: { q: 'x' } }],
      api: 'openai-responses',
      provider: 'openai',
      model: 'gpt-5',
      usage: {},
      stopReason: 'toolUse',
      timestamp: 1,
    });
    const result = (id: string) => ({ role: 'toolResult', toolCallId: id, toolName: 'lookup', content: [{ type: 'text', text: 'found' }], isError: false, timestamp: 2 });
    // Two ids alike in their first 40 characters stay apart.
    const otherId = `${longId.slice(0, 60)}zz`;
    const context = {
      messages: [userMessage(marker), assistant(longId), result(longId), userMessage('again'), assistant(otherId), result(otherId)],
      tools: [{ name: 'lookup', description: 'Look up.', parameters: { type: 'object', properties: { q: { type: 'string' } } } }],
    };
    const events = await dataLines(await proxy({ model: piModel('openai', 'replay/openai/gpt-4o-text-usage'), context }));
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'stop' });
    const [sent] = await sentWith(marker);
    const calls = sent.messages.flatMap((m: any) => m.tool_calls?.map((call: any) => call.id) ?? []);
    const results = sent.messages.flatMap((m: any) => (m.role === 'tool' ? [m.tool_call_id] : []));
    expect(calls).toEqual(results);
    expect(new Set(calls).size).toBe(2);
    for (const id of calls) expect(id.length).toBeLessThanOrEqual(40);
    expect(calls[0].startsWith(longId.slice(0, 23))).toBe(true);
  });

  it('sends a reasoning model max_completion_tokens and no temperature once it refuses max_tokens and a temperature', async () => {
    const marker = `pi-${crypto.randomUUID()}`;
    const ask = () => proxy({ model: piModel('openai', 'script/reasoning'), context: { messages: [userMessage(marker)] }, options: { temperature: 0.2, maxTokens: 321 } });
    expect((await dataLines(await ask())).at(-1)).toMatchObject({ type: 'done', reason: 'stop' });
    expect((await dataLines(await ask())).at(-1)).toMatchObject({ type: 'done', reason: 'stop' });
    const asked = (body: any) => ({ max_tokens: body.max_tokens, max_completion_tokens: body.max_completion_tokens, temperature: body.temperature });
    // Refused for max_tokens, then for the temperature; then as it takes them, and at once the next time.
    expect((await sentWith(marker)).map(asked)).toEqual([
      { max_tokens: 321, max_completion_tokens: undefined, temperature: 0.2 },
      { max_tokens: undefined, max_completion_tokens: 321, temperature: 0.2 },
      { max_tokens: undefined, max_completion_tokens: 321, temperature: undefined },
      { max_tokens: undefined, max_completion_tokens: 321, temperature: undefined },
    ]);
  });

  it('sends pi’s maxTokens within the model’s own output limit, which OpenAI names when it refuses more', async () => {
    const marker = `pi-${crypto.randomUUID()}`;
    const ask = () => proxy({ model: piModel('openai', 'replay/openai/gpt-4o-text-usage'), context: { messages: [userMessage(marker)] }, options: { maxTokens: 100_000 } });
    expect((await dataLines(await ask())).at(-1)).toMatchObject({ type: 'done', reason: 'stop' });
    expect((await dataLines(await ask())).at(-1)).toMatchObject({ type: 'done', reason: 'stop' });
    expect((await sentWith(marker)).map((body) => body.max_tokens)).toEqual([100_000, 16384, 16384]);
  });

  it('carries a thinking signature as contentSignature (Anthropic, recorded)', async () => {
    const events = await dataLines(
      await proxy({ model: piModel('anthropic', 'replay/anthropic/claude-sonnet-4-thinking-signature-text'), context: { messages: [userMessage('think')] } }),
    );
    const end = events.find((e) => e.type === 'thinking_end');
    expect(end.contentSignature).toEqual(expect.any(String));
    expect(end.contentSignature.length).toBeGreaterThan(10);
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'stop' });
  });

  it('ends a failure after the stream began with an error event, the last one', async () => {
    const failed = await dataLines(await proxy({ model: piModel('demo', 'demo'), context: { messages: [userMessage('demo:error')] } }));
    expect(failed[0]).toEqual({ type: 'start' });
    expect(failed.at(-1)).toMatchObject({ type: 'error', reason: 'error', errorMessage: expect.any(String), usage: expect.any(Object) });
    expect(failed.filter((e) => e.type === 'error' || e.type === 'done')).toHaveLength(1);

    const refused = await dataLines(await proxy({ model: piModel('demo', 'demo'), context: { messages: [userMessage('demo:refuse')] } }));
    expect(refused.at(-1)).toMatchObject({ type: 'error', reason: 'error', errorMessage: expect.any(String) });

    const cut = await dataLines(await proxy({ model: piModel('openai', 'cut/openai/gpt-4o-text-usage'), context: { messages: [userMessage('hi')] } }));
    expect(cut.at(-1)).toMatchObject({ type: 'error', reason: 'error' });
  });

  it('stops the model call when the client goes away', async () => {
    const marker = `pi-leave-${crypto.randomUUID()}`;
    const response = await proxy({ model: piModel('openai', 'script/slow'), context: { messages: [userMessage(marker)] } });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    // Once the upstream has streamed some text, the call is under way.
    await readUntil(reader, (parts) => parts.join('').includes('text_delta'), 'a text_delta');
    await reader.cancel();
    for (let tries = 0; (await abortedWith(marker)).length === 0; tries++) {
      if (tries > 100) throw new Error('the upstream call was not aborted');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });

  it('maps pi’s cloudflare-workers-ai provider to ours', async () => {
    const events = await dataLines(await proxy({ model: piModel('cloudflare-workers-ai', 'stub/text'), context: { messages: [userMessage('hi')] } }));
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'stop' });
  });

  describe('answers a bad request before the stream with {"error": "<sentence>"}', () => {
    const cases: [string, RequestInit, number, RegExp][] = [
      ['a model not in MODELS', { body: JSON.stringify({ model: piModel('openai', 'gpt-5'), context: { messages: [userMessage('x')] } }) }, 400, /not offered/],
      ['an unknown provider', { body: JSON.stringify({ model: piModel('mistral', 'large'), context: { messages: [userMessage('x')] } }) }, 400, /not offered/],
      ['no context', { body: JSON.stringify({ model: piModel('demo', 'demo') }) }, 400, /context/],
      ['no messages', { body: JSON.stringify({ model: piModel('demo', 'demo'), context: { messages: [] } }) }, 400, /no messages/],
      ['a bad message', { body: JSON.stringify({ model: piModel('demo', 'demo'), context: { messages: [{ role: 'system', content: 'x' }] } }) }, 400, /messages/],
      ['a bad tool name', { body: JSON.stringify({ model: piModel('demo', 'demo'), context: { messages: [userMessage('x')], tools: [{ name: 'a b', parameters: {} }] } }) }, 400, /Tool names/],
      ['a temperature out of range', { body: JSON.stringify({ model: piModel('demo', 'demo'), context: { messages: [userMessage('x')] }, options: { temperature: 9 } }) }, 400, /temperature/],
      ['text that is not JSON', { body: '{nope' }, 400, /not valid JSON/],
      ['a body that is not JSON', { body: 'x', headers: { 'content-type': 'text/plain' } }, 415, /JSON/],
      ['another method', { method: 'GET', body: null }, 405, /POST/],
    ];
    it.each(cases)('%s', async (_name, init, status, message) => {
      const response = await proxy(undefined, init);
      expect(response.status).toBe(status);
      const body = (await response.json()) as { error: unknown };
      expect(typeof body.error).toBe('string');
      expect(body.error).toMatch(message);
    });

    it('a missing or bad token, where the deployment has AUTH_SECRET', async () => {
      const call = (headers: Record<string, string>) =>
        callWorker(
          new Request('http://localhost/api/stream', {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...headers },
            body: JSON.stringify({ model: piModel('demo', 'demo'), context: { messages: [userMessage('hi')] } }),
          }),
          { ...env, AUTH_SECRET: SECRET },
        );
      const missing = await call({});
      expect(missing.status).toBe(401);
      expect(typeof ((await missing.json()) as any).error).toBe('string');
      const good = await call({ authorization: `Bearer ${await mint({ sub: 'pi-user' })}` });
      expect((await dataLines(good)).at(-1)).toMatchObject({ type: 'done' });
    });
  });
});
