/**
 * Turns driven end to end through the Worker and the session's Durable Object against a stand-in
 * OpenAI-compatible server over HTTP (recorded real streams and scripted behaviours), and what the
 * Worker sent it.
 */
import { describe, expect, it } from 'vitest';
import { checkHistoryInvariants, history, newSessionId, streamTurn, user } from '../helpers/api';
import { NO_ANSWER } from '../../src/providers/openai/convert-messages';
import { openConnections } from '../helpers/open-connections';
import { sentWith, upstreamUrl } from '../helpers/upstream-log';

describe('openai provider through the Worker', () => {
  it('streams a recorded text answer, with its usage on turn_stop', async () => {
    const id = newSessionId('oa-text');
    const { of, stop } = await streamTurn(id, { messages: [user(`hi ${id}`)], model: 'openai:replay/openai/gpt-4o-text-usage' });
    expect(of('text_delta').map((d) => d.delta).join('')).toBe('Olá!');
    expect(stop).toMatchObject({ stopReason: 'end_turn', usage: { inputTokens: 20, outputTokens: 2, cachedInputTokens: 0 } });
    expect((await history(id))[1]).toEqual({ role: 'assistant', content: 'Olá!' });
    const [sent] = await sentWith(id);
    expect(sent.authorization).toBe('Bearer test-key');
    expect(sent.model).toBe('replay/openai/gpt-4o-text-usage');
    expect(sent.tools.map((t: any) => t.function.name)).toEqual(['calculator', 'current_time', 'memory_save', 'memory_list', 'count_to', 'render_chart', 'agent_spawn']);
  });

  it('reads a finished answer to its end, so that its connection stays open for the next call', async () => {
    const id = newSessionId('oa-keep');
    const { stop } = await streamTurn(id, { messages: [user(`keep ${id}`)], model: 'openai:replay/openai/gpt-4o-text-usage' });
    expect(stop.stopReason).toBe('end_turn');
    const [sent] = await sentWith(id);
    // Cancelled after its [DONE] instead, the body's connection was closed by the runtime at once.
    expect(await openConnections(upstreamUrl)).toContain(sent.socket);
  });

  it('streams recorded reasoning as thinking', async () => {
    const id = newSessionId('oa-think');
    const { of, stop } = await streamTurn(id, { messages: [user(`think ${id}`)], model: 'openai:replay/deepseek/deepseek-reasoner-reasoning-content-usage' });
    expect(of('thinking_delta').length).toBeGreaterThan(10);
    expect(of('text_delta').length).toBeGreaterThan(1);
    expect(stop.stopReason).toBe('end_turn');
    expect(stop.usage.reasoningTokens).toBeGreaterThan(0);
  });

  it('runs a trusted tool the model calls, and sends the call and its result back paired', async () => {
    const id = newSessionId('oa-calc');
    const { of, stop } = await streamTurn(id, { messages: [user(`compute ${id}`)], model: 'openai:script/calc' });
    expect(of('tool_call')).toEqual([{ toolCallId: 'call_calc_1', name: 'calculator', input: { expression: '6*7' } }]);
    expect(of('tool_result')).toEqual([{ toolCallId: 'call_calc_1', content: '42' }]);
    expect(of('text_delta').map((d) => d.delta).join('')).toBe('The result is 42.');
    expect(stop).toMatchObject({ stopReason: 'end_turn', usage: { inputTokens: 24, outputTokens: 10, cachedInputTokens: 8 } });
    const [, second] = await sentWith(id);
    expect(second.messages.slice(1)).toEqual([
      { role: 'user', content: `compute ${id}` },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_calc_1', type: 'function', function: { name: 'calculator', arguments: '{"expression":"6*7"}' } }] },
      { role: 'tool', tool_call_id: 'call_calc_1', content: '42' },
    ]);
  });

  it('sends a call to a tool the model invented under a name the API takes: the turn and the next one go on', async () => {
    const id = newSessionId('oa-invent');
    const { of, stop } = await streamTurn(id, { messages: [user(`do both ${id}`)], model: 'openai:script/invent' });
    expect(of('tool_call')).toEqual([{ toolCallId: 'call_invent_1', name: 'multi_tool_use.parallel', input: { tool_uses: [] } }]);
    expect(of('tool_result')).toEqual([expect.objectContaining({ toolCallId: 'call_invent_1', isError: true })]);
    expect(stop.stopReason).toBe('end_turn');
    expect((await streamTurn(id, { messages: [user(`and now? ${id}`)], model: 'openai:replay/openai/gpt-4o-text-usage' })).stop.stopReason).toBe('end_turn');
    const sent = await sentWith(id);
    expect(sent).toHaveLength(3);
    for (const body of sent.slice(1)) {
      expect(body.messages.find((m: any) => m.tool_calls)?.tool_calls[0].function.name).toBe('multi_tool_use_parallel');
    }
    // The history keeps the name the model gave.
    const stored = await history(id);
    expect(stored[1].content).toEqual([expect.objectContaining({ type: 'tool_use', name: 'multi_tool_use.parallel' })]);
  });

  it('sends DeepSeek’s reasoning back once its thinking mode asks for it, and at once after that', async () => {
    const id = newSessionId('oa-deepseek');
    const model = 'openai:replay/deepseek/deepseek-reasoner-reasoning-tool-call-cached';
    const tools = [{ name: 'weather' }];
    const first = await streamTurn(id, { messages: [user(`weather? ${id}`)], tools, model });
    expect(first.stop.stopReason).toBe('tool_use');
    const thought = first.of('thinking_delta').map((d) => d.delta).join('');
    expect(thought.length).toBeGreaterThan(20);
    const call = first.of('tool_call')[0]!;
    const resumed = await streamTurn(id, { messages: [{ role: 'tool', toolCallId: call.toolCallId, content: 'sunny' }], tools, model });
    expect(resumed.stop.stopReason).toBe('end_turn');
    const next = await streamTurn(id, { messages: [user(`and tomorrow? ${id}`)], tools, model });
    expect(next.stop.stopReason).toBe('tool_use');
    const reasoning = (body: any) => body.messages.filter((m: any) => m.role === 'assistant').map((m: any) => m.reasoning_content);
    // The resume: refused without the reasoning, then sent with it; the next turn sends it at once.
    expect((await sentWith(id)).map(reasoning)).toEqual([[], [undefined], [thought], [thought, '']]);
  });

  it('sends a strict chat template one system message and turns that alternate once it asks, and at once after that', async () => {
    const id = newSessionId('oa-strict');
    const strict = 'openai:script/strict';
    expect((await streamTurn(id, { messages: [user(`one ${id}`)], model: strict })).stop.stopReason).toBe('end_turn');
    // A turn that fails before its answer leaves two user messages in a row.
    expect((await streamTurn(id, { messages: [user('two')], model: 'openai:status/500' })).stop.stopReason).toBe('error');
    const third = await streamTurn(id, { messages: [{ role: 'system', content: 'Answer in French.' }, user('three')], model: strict });
    expect(third.stop.stopReason).toBe('end_turn');
    expect((await streamTurn(id, { messages: [user('four')], model: strict })).stop.stopReason).toBe('end_turn');
    const roles = (body: any) => body.messages.map((m: any) => m.role).join(' ');
    expect((await sentWith(id)).filter((body) => body.model === 'script/strict').map(roles)).toEqual([
      'system user',
      // Refused as it stood, then sent as the template takes it; the next turn at once.
      'system user assistant user system user',
      'system user assistant user',
      'system user assistant user assistant user',
    ]);
    const [, , resent] = (await sentWith(id)).filter((body) => body.model === 'script/strict');
    expect(resent.messages[0].content).toMatch(/\n\nAnswer in French\.$/);
    expect(resent.messages[3].content).toBe('two\n\nthree');
    // The history keeps each message as it came.
    expect((await history(id)).map((m: any) => m.role)).toEqual(['user', 'assistant', 'user', 'system', 'user', 'assistant', 'user', 'assistant']);
  });

  it('goes on with a strict chat template after a turn that stopped once its tools ran, before its answer', async () => {
    const id = newSessionId('oa-strict-tools');
    const strict = 'openai:script/strict';
    const asked = await streamTurn(id, { messages: [user(`weather ${id}`)], model: 'openai:replay/openai/gpt-4o-single-tool-call-usage', tools: [{ name: 'weather' }] });
    const [call] = asked.of('tool_call');
    // The result is stored; the call after it fails: the turn ends with no answer after its results.
    const answered = await streamTurn(id, { messages: [{ role: 'tool', toolCallId: call!.toolCallId, content: 'sunny' }], model: 'openai:status/500' });
    expect(answered.stop.stopReason).toBe('error');
    expect((await streamTurn(id, { messages: [user('and tomorrow?')], model: strict })).stop.stopReason).toBe('end_turn');
    expect((await streamTurn(id, { messages: [user('thanks')], model: strict })).stop.stopReason).toBe('end_turn');
    const sent = (await sentWith(id)).filter((body) => body.model === 'script/strict');
    const roles = (body: any) => body.messages.map((m: any) => (m.tool_calls ? 'calls' : m.role)).join(' ');
    // Refused as it stood (the template reads the user twice in a row), unless the test before taught
    // this server's dialect already; then with an answer that says why, and at once the next turn.
    expect(sent.slice(0, -2).map(roles)).toEqual(sent.length === 3 ? ['system user calls tool user'] : []);
    expect(sent.slice(-2).map(roles)).toEqual(['system user calls tool assistant user', 'system user calls tool assistant user assistant user']);
    expect(sent.at(-2).messages[4]).toEqual({ role: 'assistant', content: NO_ANSWER });
  });

  it('leaves out an answer that was all thinking, which Mistral refuses as saying nothing: the session goes on', async () => {
    const id = newSessionId('oa-silent');
    // A reasoning model that spent its whole output thinking: the turn stops at the limit, no answer.
    const thought = await streamTurn(id, { messages: [user(`think ${id}`)], model: 'openai:script/think' });
    expect(thought.stop.stopReason).toBe('max_tokens');
    expect((await history(id)).at(-1)).toMatchObject({ role: 'assistant', content: [{ type: 'thinking' }] });
    expect((await streamTurn(id, { messages: [user('and now?')], model: 'openai:script/mistral' })).stop.stopReason).toBe('end_turn');
    const [first] = (await sentWith(id)).filter((body) => body.model === 'script/mistral');
    expect(first.messages.map((m: any) => m.role)).toEqual(['system', 'user', 'user']);
  });

  it('sends Mistral tool call ids of nine letters and digits once it asks, the same for a call and its result', async () => {
    const id = newSessionId('oa-mistral');
    // Another model's call first: its id, call_calc_1, is one Mistral refuses.
    expect((await streamTurn(id, { messages: [user(`compute ${id}`)], model: 'openai:script/calc' })).stop.stopReason).toBe('end_turn');
    const { of, stop } = await streamTurn(id, { messages: [user(`again ${id}`)], model: 'openai:script/mistral' });
    expect(stop.stopReason).toBe('end_turn');
    expect(of('tool_call')[0]).toMatchObject({ toolCallId: 'D681PevKs' });
    const mistral = (await sentWith(id)).filter((body) => body.model === 'script/mistral');
    const ids = (body: any) => body.messages.flatMap((m: any) => [...(m.tool_calls ?? []).map((c: any) => c.id), ...(m.tool_call_id ? [m.tool_call_id] : [])]);
    // Refused with call_calc_1, sent again in nine characters; the turn's second call at once.
    expect(mistral).toHaveLength(3);
    expect(ids(mistral[0])).toEqual(['call_calc_1', 'call_calc_1']);
    const [mapped] = ids(mistral[1]);
    expect(mapped).toMatch(/^[A-Za-z0-9]{9}$/);
    expect(ids(mistral[1])).toEqual([mapped, mapped]);
    expect(ids(mistral[2])).toEqual([mapped, mapped, 'D681PevKs', 'D681PevKs']);
    // The history keeps each id as it came.
    expect(JSON.stringify(await history(id))).toContain('"toolCallId":"call_calc_1"');
  });

  it('runs Gemini 3’s tool calls, parallel and without indexes, once it asks for thought signatures: each call’s own, kept in the history', async () => {
    const id = newSessionId('oa-gemini');
    const model = 'openai:script/gemini';
    // Another model's call first, which came with no signature.
    expect((await streamTurn(id, { messages: [user(`compute ${id}`)], model: 'openai:script/calc' })).stop.stopReason).toBe('end_turn');
    const { of, stop } = await streamTurn(id, { messages: [user(`again ${id}`)], model });
    // Two calls, though neither came with an index, each run with its own arguments.
    expect(of('tool_result')).toEqual([
      { toolCallId: 'function-call-15140648152055466079', content: '42' },
      { toolCallId: 'function-call-7310582273390427171', content: '5' },
    ]);
    expect(stop.stopReason).toBe('end_turn');
    expect((await streamTurn(id, { messages: [user(`once more ${id}`)], model })).stop.stopReason).toBe('end_turn');
    const signatures = (body: any) =>
      body.messages.flatMap((m: any) => (m.tool_calls ?? []).map((call: any) => call.extra_content?.google?.thought_signature ?? null));
    const skip = 'skip_thought_signature_validator';
    const signed = 'CoMBAY89a1/signed';
    // Refused without signatures, then sent with each call's own (Google's value for the calls that
    // came with none: another model's, and a parallel call after the first); later calls carry them at once.
    expect((await sentWith(id)).filter((body) => body.model === 'script/gemini').map(signatures)).toEqual([
      [null],
      [skip],
      [skip, signed, skip],
      [skip, signed, skip],
      [skip, signed, skip, signed, skip],
    ]);
    // The history keeps the signature the call came with.
    const calls = (await history(id)).flatMap((m: any) => (Array.isArray(m.content) ? m.content : [])).filter((b: any) => b.type === 'tool_use');
    expect(calls.map((call: any) => call.signature ?? null)).toEqual([null, signed, null, signed, null]);
  });

  it('leaves stream_options out for a server that refuses them (Azure OpenAI), at once after it said so', async () => {
    const id = newSessionId('oa-azure');
    const model = 'openai:script/azure';
    expect((await streamTurn(id, { messages: [user(`hi ${id}`)], model })).stop.stopReason).toBe('end_turn');
    expect((await streamTurn(id, { messages: [user(`again ${id}`)], model })).stop.stopReason).toBe('end_turn');
    expect((await sentWith(id)).map((body) => 'stream_options' in body)).toEqual([true, false, false]);
  });

  it('offers at most the tools a server takes (OpenAI: 128), learnt from its refusal: the request’s own client tools stay, built-in ones go first', async () => {
    const id = newSessionId('oa-many-tools');
    const tools = Array.from({ length: 125 }, (_, index) => ({ name: `client_tool_${index}` }));
    const { stop } = await streamTurn(id, { messages: [user(`hi ${id}`)], tools, model: 'openai:replay/openai/gpt-4o-text-usage' });
    expect(stop.stopReason).toBe('end_turn');
    const sent = (await sentWith(id)).map((body) => body.tools.map((tool: any) => tool.function.name));
    // The refused call offered the seven built-in tools and the 125; the next, 128 of them.
    expect(sent.map((names) => names.length)).toEqual([132, 128]);
    expect(sent[1]!.filter((name: string) => name.startsWith('client_tool_'))).toHaveLength(125);
  });

  it('shortens a tool description past what the server takes (OpenAI: 1,024 characters), learnt from its refusal', async () => {
    const id = newSessionId('oa-long-description');
    const description = `Looks up the weather. ${'It knows every city and every kind of weather. '.repeat(40)}`;
    const { stop } = await streamTurn(id, { messages: [user(`hi ${id}`)], tools: [{ name: 'weather', description }], model: 'openai:replay/openai/gpt-4o-text-usage' });
    expect(stop.stopReason).toBe('end_turn');
    const sent = (await sentWith(id)).map((body) => body.tools.find((tool: any) => tool.function.name === 'weather').function.description as string);
    expect(sent.map((text) => text.length)).toEqual([description.length, 1024]);
    expect(sent[1]).toBe(`${description.slice(0, 1023)}…`);
  });

  it('leaves out of the tools’ schemas the keywords a server names as unknown (Gemini behind a gateway), at every depth; a property of that name stays', async () => {
    const id = newSessionId('oa-schema-keys');
    const parameters = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { city: { type: 'object', properties: { name: { type: 'string' } }, additionalProperties: false }, additionalProperties: { type: 'string', enum: ['additionalProperties'] } },
      additionalProperties: false,
    };
    const { stop } = await streamTurn(id, { messages: [user(`hi ${id}`)], tools: [{ name: 'weather', parameters }], model: 'openai:script/gateway' });
    expect(stop.stopReason).toBe('end_turn');
    const sent = (await sentWith(id)).map((body) => body.tools.find((tool: any) => tool.function.name === 'weather').function.parameters);
    expect(sent).toHaveLength(2);
    expect(sent[1]).toEqual({ type: 'object', properties: { city: { type: 'object', properties: { name: { type: 'string' } } }, additionalProperties: { type: 'string', enum: ['additionalProperties'] } } });
  });

  it('gives an array schema without items (as MCP servers publish it, and OpenAI refuses it) items of any kind, at every depth', async () => {
    const id = newSessionId('oa-array-items');
    const parameters = { type: 'object', properties: { texts: { type: 'array', description: 'words' }, nested: { type: 'object', properties: { tags: { type: ['array', 'null'] } } }, named: { type: 'array', items: { type: 'string' } } } };
    const { stop } = await streamTurn(id, { messages: [user(`hi ${id}`)], tools: [{ name: 'lookup', parameters }], model: 'openai:replay/openai/gpt-4o-text-usage' });
    expect(stop.stopReason).toBe('end_turn');
    const sent = (await sentWith(id)).map((body) => body.tools.find((tool: any) => tool.function.name === 'lookup').function.parameters);
    expect(sent).toEqual([
      { type: 'object', properties: { texts: { type: 'array', description: 'words', items: {} }, nested: { type: 'object', properties: { tags: { type: ['array', 'null'], items: {} } } }, named: { type: 'array', items: { type: 'string' } } } },
    ]);
  });

  it('gives a tool that takes no input (`{"type": "object"}` alone, as MCP servers publish it, which OpenAI refuses) empty properties', async () => {
    const id = newSessionId('oa-no-properties');
    const { stop } = await streamTurn(id, { messages: [user(`hi ${id}`)], tools: [{ name: 'help', parameters: { type: 'object' } }], model: 'openai:replay/openai/gpt-4o-text-usage' });
    expect(stop.stopReason).toBe('end_turn');
    const sent = (await sentWith(id)).map((body) => body.tools.find((tool: any) => tool.function.name === 'help').function.parameters);
    expect(sent).toEqual([{ type: 'object', properties: {} }]);
  });

  it('leaves out a tool whose schema the server refuses (a broken one, as MCP servers publish), learnt from its refusal; the others go on working', async () => {
    const id = newSessionId('oa-broken-schema');
    const tools = [{ name: 'broken', parameters: { type: 'object', properties: { filePath: { type: 'string' }, type: 'object' } } }, { name: 'weather' }];
    const first = await streamTurn(id, { messages: [user(`hi ${id}`)], tools, model: 'openai:replay/openai/gpt-4o-text-usage' });
    expect(first.stop.stopReason).toBe('end_turn');
    const second = await streamTurn(id, { messages: [user('again')], tools, model: 'openai:replay/openai/gpt-4o-text-usage' });
    expect(second.stop.stopReason).toBe('end_turn');
    const offered = (await sentWith(id)).map((body) => body.tools.map((tool: any) => tool.function.name) as string[]);
    // The refused call, then every call without the tool it named.
    expect(offered.map((names) => [names.includes('broken'), names.includes('weather')])).toEqual([[true, true], [false, true], [false, true]]);
  });

  it.each([
    ['vLLM started without a tool-call parser', 'openai:script/notools'],
    ['Ollama, for a model without tool use', 'openai:script/ollama-notools'],
    ['OpenRouter, where no provider of the model takes tools (404)', 'openai:script/openrouter-notools'],
  ])('offers no tools to a server that takes none (%s), learnt from its refusal: the model answers in text', async (_server, model) => {
    const id = newSessionId('oa-no-tools');
    expect((await streamTurn(id, { messages: [user(`hi ${id}`)], model })).stop.stopReason).toBe('end_turn');
    expect((await streamTurn(id, { messages: [user('again')], model })).stop.stopReason).toBe('end_turn');
    expect((await sentWith(id)).map((body) => 'tools' in body)).toEqual([true, false, false]);
  });

  it('sends no reasoning back to a server that did not ask for it', async () => {
    const id = newSessionId('oa-no-reasoning');
    const tools = [{ name: 'weather' }];
    const model = 'openai:replay/llamacpp/gpt-oss-20b-reasoning-tool-call-timings';
    const first = await streamTurn(id, { messages: [user(`weather? ${id}`)], tools, model });
    expect(first.of('thinking_delta').length).toBeGreaterThan(0);
    const call = first.of('tool_call')[0]!;
    await streamTurn(id, { messages: [{ role: 'tool', toolCallId: call.toolCallId, content: 'sunny' }], tools, model });
    for (const body of await sentWith(id)) expect(JSON.stringify(body.messages)).not.toContain('reasoning_content');
  });

  it('stops for a recorded client tool call and resumes with the client result', async () => {
    const id = newSessionId('oa-client');
    const tools = [{ name: 'weather', parameters: { type: 'object', properties: { location: { type: 'string' } } } }];
    const first = await streamTurn(id, { messages: [user(`weather ${id}`)], tools, model: 'openai:replay/openai/gpt-4o-single-tool-call-usage' });
    const call = first.of('tool_call')[0]!;
    expect(call.name).toBe('weather');
    expect(first.stop.stopReason).toBe('tool_use');

    const second = await streamTurn(id, {
      messages: [{ role: 'tool', toolCallId: call.toolCallId, content: '18°C' }],
      tools,
      model: 'openai:replay/openai/gpt-4o-single-tool-call-usage',
    });
    expect(second.stop.stopReason).toBe('end_turn');
    const [, resumed] = await sentWith(id);
    expect(resumed.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: call.toolCallId, content: '18°C' });
    checkHistoryInvariants(await history(id));
  });

  it('stops for recorded parallel client calls; both answers resume the turn', async () => {
    const id = newSessionId('oa-parallel');
    const tools = [{ name: 'add' }, { name: 'multiply' }];
    const model = 'openai:replay/openai/gpt-4o-parallel-tool-calls-usage';
    const first = await streamTurn(id, { messages: [user(`math ${id}`)], tools, model });
    const calls = first.of('tool_call');
    expect(calls.map((c) => c.name)).toEqual(['add', 'multiply']);
    expect(first.stop.stopReason).toBe('tool_use');
    const answers = calls.map((c, index) => ({ role: 'tool', toolCallId: c.toolCallId, content: String(index + 5) }));
    const second = await streamTurn(id, { messages: [...answers].reverse(), tools, model });
    expect(second.stop.stopReason).toBe('end_turn');
    const [, resumed] = await sentWith(id);
    expect(resumed.messages.slice(-2).map((m: any) => m.tool_call_id)).toEqual(calls.map((c) => c.toolCallId));
  });

  it.each([
    ['length', 'openai:replay/openrouter/minimax-m2-reasoning-length-midstream-error', 'max_tokens'],
    ['a refusal', 'openai:replay/openai/gpt-4o-refusal', 'refusal'],
  ])('maps %s to its stop reason', async (_label, model, stopReason) => {
    const id = newSessionId('oa-stop');
    const { stop } = await streamTurn(id, { messages: [user(`x ${id}`)], model });
    expect(stop.stopReason).toBe(stopReason);
  });

  it('takes an answer whose server ends its body after its finish reason and usage, without data: [DONE]', async () => {
    const id = newSessionId('oa-nodone');
    const { of, stop } = await streamTurn(id, { messages: [user(`hi ${id}`)], model: 'openai:script/nodone' });
    expect(of('text_delta').map((d) => d.delta).join('')).toBe('ok');
    expect(stop).toMatchObject({ stopReason: 'end_turn', usage: { inputTokens: 12, outputTokens: 1 } });
    expect((await history(id)).at(-1)).toMatchObject({ role: 'assistant', content: 'ok' });
  });

  it.each([
    ['an HTTP error', 'openai:status/500', 'upstream_error'],
    ['a rate limit', 'openai:status/429', 'upstream_error'],
    ['a stream cut mid-way', 'openai:cut/openai/gpt-4o-single-tool-call-usage', 'upstream_cut'],
    ['a cut during reasoning', 'openai:cut/deepseek/deepseek-reasoner-reasoning-content-usage', 'upstream_cut'],
    ['a server that never answers', 'openai:hang', 'upstream_timeout'],
    ['a server that never starts its stream', 'openai:silent', 'upstream_timeout'],
    ['a server that keeps failing', 'openai:flaky/3', 'upstream_error'],
    ['a server that stops sending', 'openai:stall', 'upstream_timeout'],
  ])('ends the turn with error on %s, and leaves the session consistent', async (_label, model, code) => {
    const id = newSessionId('oa-fail');
    const { stop, events } = await streamTurn(id, { messages: [user(`fail ${id}`)], model, tools: [{ name: 'weather' }] });
    expect(stop.stopReason).toBe('error');
    expect(stop.error.code).toBe(code);
    expect(JSON.stringify(events)).not.toContain('secret upstream detail');
    expect(await history(id)).toEqual([{ role: 'user', content: `fail ${id}` }]);
    const next = await streamTurn(id, { messages: [user('again')] });
    expect(next.stop.stopReason).toBe('end_turn');
  });

  it('retries a fault that came before any output, and succeeds', async () => {
    const id = newSessionId('oa-flaky');
    const { of, stop, events } = await streamTurn(id, { messages: [user(`flaky ${id}`)], model: 'openai:flaky/1' });
    expect(stop.stopReason).toBe('end_turn');
    expect(of('text_delta').map((d) => d.delta).join('')).toBe('Olá!');
    expect(events.filter((e) => e.event === 'text_delta').length).toBe(2); // the failed attempt showed nothing
    expect(await sentWith(id)).toHaveLength(2);
  });

  it.each([
    ['a stream cut after output', 'openai:cut/openai/gpt-4o-text-usage', 1],
    ['a stall after output', 'openai:stall', 1],
    ['a fault that keeps coming (one retry allowed)', 'openai:flaky/3', 2],
    ['a timeout before any output (one retry allowed)', 'openai:silent', 2],
  ])('sends %s the number of times the policy allows', async (_label, model, requests) => {
    const id = newSessionId('oa-count');
    const { stop } = await streamTurn(id, { messages: [user(`count ${id}`)], model });
    expect(stop.stopReason).toBe('error');
    expect((await sentWith(id)).filter((body) => !body.closedEarly)).toHaveLength(requests);
  });

  it('sends a refused call once more without the images of earlier messages: an expired link fails only the turn that sent it', async () => {
    const id = newSessionId('oa-link');
    const model = 'openai:replay/openai/gpt-4o-text-usage';
    const image = { type: 'image', url: 'https://images.example/expired/cat.png' };
    // The link the user has just sent is kept: the server's refusal is theirs to hear about.
    const first = await streamTurn(id, { messages: [{ role: 'user', content: [{ type: 'text', text: `look ${id}` }, image] }], model });
    expect(first.stop).toMatchObject({ stopReason: 'error', error: { code: 'upstream_error' } });
    // Once they send another message, it is an earlier one: the refused call goes again without it.
    const second = await streamTurn(id, { messages: [user(`and now? ${id}`)], model });
    expect(second.stop.stopReason).toBe('end_turn');
    const sent = await sentWith(id);
    expect(sent).toHaveLength(3);
    expect(sent[1].messages[1].content[1]).toEqual({ type: 'image_url', image_url: { url: image.url } });
    expect(sent[2].messages[1].content).toEqual([
      { type: 'text', text: `look ${id}` },
      { type: 'text', text: '[An image shown earlier (https://images.example/expired/cat.png) is no longer sent: the model\'s server refused a request that held it.]' },
    ]);
    // The history keeps the image as it came.
    expect((await history(id))[0].content[1]).toEqual(image);

    // The session remembers: a later turn of two calls (a tool's round) leaves the link out from its
    // first call, with no refusal to learn it again.
    const third = await streamTurn(id, { messages: [user(`calc ${id}`)], model: 'openai:script/calc' });
    expect(third.stop.stopReason).toBe('end_turn');
    const calls = (await sentWith(id)).slice(3);
    expect(calls.map((call) => JSON.stringify(call.messages).includes('"url":"https://images.example/expired/cat.png"'))).toEqual([false, false]);
    expect(JSON.stringify(calls[0].messages)).toContain('An image shown earlier (https://images.example/expired/cat.png) is no longer sent');

    // An image sent after the refusal goes with later calls: only what came before it is left out.
    const fresh = { type: 'image', url: 'https://images.example/fresh/dog.png' };
    await streamTurn(id, { messages: [{ role: 'user', content: [{ type: 'text', text: `and this ${id}` }, fresh] }], model });
    await streamTurn(id, { messages: [user(`again ${id}`)], model });
    expect((await sentWith(id)).slice(5).map((call) => JSON.stringify(call.messages).includes(fresh.url))).toEqual([true, true]);
  });
});
