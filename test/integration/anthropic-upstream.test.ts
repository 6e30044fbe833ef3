/**
 * The anthropic provider end to end through the Worker against a stand-in Messages API replaying
 * recorded streams; a session that moves between providers; usage per call, per turn and per session.
 */
import { describe, expect, it } from 'vitest';
import { checkHistoryInvariants, history, newSessionId, session, streamTurn, turn, user } from '../helpers/api';
import { sentWith } from '../helpers/upstream-log';
import { ANTHROPIC_MAX_REQUEST_BYTES } from '../helpers/standin-limits';

const A = (fixture: string) => `anthropic:replay/anthropic/${fixture}`;

describe('anthropic provider through the Worker', () => {
  it('streams recorded text, with the key, cache breakpoints and usage per call', async () => {
    const id = newSessionId('an-text');
    const { of, stop } = await streamTurn(id, { messages: [user(`hi ${id}`)], model: A('claude-sonnet-4-text-ping') });
    expect(of('text_delta').length).toBeGreaterThan(3);
    expect(stop.stopReason).toBe('end_turn');
    expect(stop.usage.calls).toHaveLength(1);
    expect(stop.usage.calls[0]).toMatchObject({ model: A('claude-sonnet-4-text-ping') });
    expect(stop.usage.inputTokens).toBe(stop.usage.calls[0].inputTokens);
    const [sent] = await sentWith(id);
    expect(sent.apiKey).toBe('test-anthropic-key');
    expect(sent.system[0].cache_control).toEqual({ type: 'ephemeral' });
    expect(sent.tools.at(-1).cache_control).toEqual({ type: 'ephemeral' });
    expect(sent.messages.at(-1).content.at(-1).cache_control).toEqual({ type: 'ephemeral' });
  });

  it('runs a trusted tool inline and answers with its result; usage counts cache reads and writes', async () => {
    const id = newSessionId('an-calc');
    const { of, stop } = await streamTurn(id, { messages: [user(`compute ${id}`)], model: 'anthropic:script/calc' });
    expect(of('tool_call')).toEqual([{ toolCallId: 'toolu_calc_1', name: 'calculator', input: { expression: '6*7' } }]);
    expect(of('tool_result')).toEqual([{ toolCallId: 'toolu_calc_1', content: '42' }]);
    expect(of('text_delta').map((d) => d.delta).join('')).toBe('The result is 42.');
    expect(stop).toMatchObject({ stopReason: 'end_turn', usage: { inputTokens: 64, cachedInputTokens: 16, cacheWriteInputTokens: 8, outputTokens: 19 } });
    expect(stop.usage.calls).toHaveLength(2);
  });

  it('answers a first turn that brings only a system message: the API takes no request without a message', async () => {
    const id = newSessionId('an-system-only');
    const { stop } = await streamTurn(id, { messages: [{ role: 'system', content: `Introduce yourself. ${id}` }], model: A('claude-sonnet-4-text-ping') });
    expect(stop.stopReason).toBe('end_turn');
    const [sent] = await sentWith(id);
    expect(sent.system[0].text).toMatch(/Introduce yourself/);
    expect(sent.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: '(empty)', cache_control: { type: 'ephemeral' } }] }]);
  });

  it('takes a block a compatible server sends whole at its start, with no delta after: the call runs with its input, the answer is kept', async () => {
    const id = newSessionId('an-whole');
    const { of, stop } = await streamTurn(id, { messages: [user(`compute ${id}`)], model: 'anthropic:script/whole' });
    expect(of('tool_call')).toEqual([{ toolCallId: 'toolu_whole_1', name: 'calculator', input: { expression: '6*7' } }]);
    expect(of('tool_result')).toEqual([{ toolCallId: 'toolu_whole_1', content: '42' }]);
    expect(of('text_delta').map((d) => d.delta).join('')).toBe('The result is 42.');
    expect(stop.stopReason).toBe('end_turn');
  });

  it('ends a turn past its tool rounds with an answer: the last call names the tools, which the history of calls needs, and forbids them', async () => {
    const id = newSessionId('an-loop');
    const { of, stop } = await streamTurn(id, { messages: [user(`keep adding ${id}`)], model: 'anthropic:script/loop' });
    expect(of('tool_result')).toHaveLength(3); // MAX_ITERATIONS is 3 in the tests
    expect(stop).toMatchObject({ stopReason: 'end_turn', maxIterationsReached: true });
    expect(of('text_delta').map((d) => d.delta).join('')).toBe('The calculator kept answering; here is what it said.');
    const sent = await sentWith(id);
    expect(sent.map((body) => body.tool_choice ?? null)).toEqual([null, null, null, { type: 'none' }]);
    expect(sent.at(-1).tools.map((tool: any) => tool.name)).toContain('calculator');
  });

  it('learns a model’s own output limit from its refusal (Claude 3 Haiku’s 4096): the call goes again within it, and so do the later ones', async () => {
    const id = newSessionId('an-limit');
    const first = await streamTurn(id, { messages: [user(`compute ${id}`)], model: 'anthropic:script/claude-3-haiku' });
    expect(first.stop.stopReason).toBe('end_turn');
    expect(first.of('tool_result').map((result) => result.content)).toEqual(['42']);
    const second = await streamTurn(id, { messages: [user('and again')], model: 'anthropic:script/claude-3-haiku' });
    expect(second.stop.stopReason).toBe('end_turn');
    // The refused call (ANTHROPIC_MAX_TOKENS, 8192), then every call within the limit it named.
    expect((await sentWith(id)).map((body) => body.max_tokens)).toEqual([8192, 4096, 4096, 4096, 4096]);
  });

  it('offers a tool whose schema branches at its top (as MCP servers publish), which the API refuses as it came: its branches joined', async () => {
    const id = newSessionId('an-branches');
    const parameters = { type: 'object', oneOf: [{ properties: { city: { type: 'string' } }, required: ['city'] }, { properties: { lat: { type: 'number' }, lon: { type: 'number' } }, required: ['lat', 'lon'] }] };
    const { stop } = await streamTurn(id, { messages: [user(`compute ${id}`)], tools: [{ name: 'weather', parameters }], model: 'anthropic:script/calc' });
    expect(stop.stopReason).toBe('end_turn');
    const [sent] = await sentWith(id);
    expect(sent.tools.find((tool: any) => tool.name === 'weather').input_schema).toEqual({ type: 'object', properties: { city: { type: 'string' }, lat: { type: 'number' }, lon: { type: 'number' } } });
  });

  it('leaves out a tool whose schema the server refuses (a broken one, as MCP servers publish), learnt from its refusal; the others go on working', async () => {
    const id = newSessionId('an-broken-schema');
    const tools = [{ name: 'broken', parameters: { type: 'object', properties: { filePath: { type: 'string' }, type: 'object' } } }, { name: 'weather' }];
    const first = await streamTurn(id, { messages: [user(`hi ${id}`)], tools, model: 'anthropic:replay/anthropic/claude-sonnet-4-text-ping' });
    expect(first.stop.stopReason).toBe('end_turn');
    const second = await streamTurn(id, { messages: [user('again')], tools, model: 'anthropic:replay/anthropic/claude-sonnet-4-text-ping' });
    expect(second.stop.stopReason).toBe('end_turn');
    const offered = (await sentWith(id)).map((body) => body.tools.map((tool: any) => tool.name) as string[]);
    // The refused call, then every call without the tool it named.
    expect(offered.map((names) => [names.includes('broken'), names.includes('weather')])).toEqual([[true, true], [false, true], [false, true]]);
  });

  it('continues a paused answer (pause_turn) transparently with another call', async () => {
    const id = newSessionId('an-pause');
    const { of, stop } = await streamTurn(id, { messages: [user(`long job ${id}`)], model: 'anthropic:script/pause' });
    expect(of('text_delta').map((d) => d.delta).join('')).toBe('Working on it, and here is the rest.');
    expect(stop.stopReason).toBe('end_turn');
    const [, second] = await sentWith(id);
    // Sent without its trailing space: the API refuses a final assistant message that ends in whitespace.
    expect(second.messages.at(-1)).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'Working on it,', cache_control: { type: 'ephemeral' } }] });
  });

  it('keeps thinking with its signature and sends it back verbatim on the next call', async () => {
    const id = newSessionId('an-think');
    const first = await streamTurn(id, { messages: [user(`think ${id}`)], model: A('claude-sonnet-4-thinking-signature-text') });
    expect(first.of('thinking_delta').length).toBeGreaterThan(5);
    const stored = (await history(id))[1];
    const thinking = stored.content[0];
    expect(thinking.type).toBe('thinking');
    expect(thinking.signature.length).toBeGreaterThan(50);

    await streamTurn(id, { messages: [user('and then?')], model: A('claude-sonnet-4-text-ping') });
    const [, second] = await sentWith(id);
    expect(second.messages[1].content[0]).toEqual({ type: 'thinking', thinking: thinking.thinking, signature: thinking.signature });
  });

  it('keeps redacted thinking and sends it back as redacted_thinking', async () => {
    const id = newSessionId('an-redacted');
    await streamTurn(id, { messages: [user(`secret ${id}`)], model: A('claude-sonnet-4-5-redacted-thinking') });
    // The same model again: the API takes back only what the model it asks for signed.
    await streamTurn(id, { messages: [user('more')], model: A('claude-sonnet-4-5-redacted-thinking') });
    const [, second] = await sentWith(id);
    expect(second.messages[1].content.slice(0, 2).map((b: any) => b.type)).toEqual(['redacted_thinking', 'redacted_thinking']);
  });

  it('goes on when the session changes its model: thinking another model signed, which the API refuses, is left out', async () => {
    const id = newSessionId('an-model-change');
    const sonnet4 = A('claude-sonnet-4-thinking-signature-text');
    const sonnet45 = A('claude-sonnet-4-5-redacted-thinking');
    expect((await streamTurn(id, { messages: [user(`think ${id}`)], model: sonnet4 })).stop.stopReason).toBe('end_turn');
    expect((await streamTurn(id, { messages: [user(`now you ${id}`)], model: sonnet45 })).stop.stopReason).toBe('end_turn');
    expect((await streamTurn(id, { messages: [user(`and again ${id}`)], model: sonnet45 })).stop.stopReason).toBe('end_turn');
    const thinking = (body: any) => body.messages.flatMap((m: any) => m.content).filter((b: any) => b.type === 'thinking' || b.type === 'redacted_thinking').length;
    // The first turn on the other model: refused for the first model's thinking, then sent without
    // earlier thinking. The next sends its own model's thinking and not the other's, at once.
    expect((await sentWith(id)).map((body) => [body.model, thinking(body)])).toEqual([
      ['replay/anthropic/claude-sonnet-4-thinking-signature-text', 0],
      ['replay/anthropic/claude-sonnet-4-5-redacted-thinking', 1],
      ['replay/anthropic/claude-sonnet-4-5-redacted-thinking', 0],
      ['replay/anthropic/claude-sonnet-4-5-redacted-thinking', 2],
    ]);
    // The history keeps every thought as it came.
    const stored = await history(id);
    expect(stored.filter((m: any) => m.role === 'assistant' && m.content.some((b: any) => b.type === 'thinking'))).toHaveLength(3);
  });

  it('stops for recorded parallel tool calls and resumes with the results', async () => {
    const id = newSessionId('an-tools');
    const tools = [{ name: 'add' }, { name: 'multiply' }];
    const first = await streamTurn(id, { messages: [user(`math ${id}`)], tools, model: A('claude-sonnet-4-parallel-tool-use') });
    const calls = first.of('tool_call');
    expect(calls.map((c) => c.name)).toEqual(['add', 'multiply']);
    expect(first.stop.stopReason).toBe('tool_use');
    const second = await streamTurn(id, {
      messages: calls.map((c) => ({ role: 'tool', toolCallId: c.toolCallId, content: '7' })),
      tools,
      model: A('claude-sonnet-4-parallel-tool-use'),
    });
    expect(second.stop.stopReason).toBe('end_turn');
    const [, resumed] = await sentWith(id);
    expect(resumed.messages.at(-1).content.map((b: any) => b.tool_use_id)).toEqual(calls.map((c) => c.toolCallId));
  });

  it.each([
    ['a refusal', A('claude-fable-5-1-refusal'), 'refusal', undefined],
    ['an error event after output (not retried)', 'anthropic:script/overloaded', 'error', 1],
    ['an overloaded server (retried once, then given up)', 'anthropic:status/529', 'error', 2],
    ['a cut stream', 'anthropic:cut/anthropic/claude-sonnet-4-single-tool-use', 'error', 1],
  ])('maps %s', async (_label, model, stopReason, requests) => {
    const id = newSessionId('an-stop');
    const { stop } = await streamTurn(id, { messages: [user(`x ${id}`)], model });
    expect(stop.stopReason).toBe(stopReason);
    if (requests !== undefined) expect(await sentWith(id)).toHaveLength(requests);
    expect((await turn(id, { messages: [user('again')] })).status).toBe(200);
  });
});

describe('a session that changes provider between turns', () => {
  it('converts the history for each: thinking dropped for OpenAI, signed thinking back for Anthropic, tool ids paired', async () => {
    const id = newSessionId('switch');
    await streamTurn(id, { messages: [user(`start ${id}`)], model: A('claude-sonnet-4-thinking-signature-text') });
    const tools = [{ name: 'weather' }];
    const viaOpenAI = await streamTurn(id, { messages: [user('weather?')], tools, model: 'openai:replay/openai/gpt-4o-single-tool-call-usage' });
    const call = viaOpenAI.of('tool_call')[0]!;
    const back = await streamTurn(id, { messages: [{ role: 'tool', toolCallId: call.toolCallId, content: 'sunny' }], tools, model: A('claude-sonnet-4-text-ping') });
    expect(back.stop.stopReason).toBe('end_turn');

    const [, openaiRequest, anthropicRequest] = await sentWith(id);
    // OpenAI: the Anthropic answer arrives as plain text, its thinking left out.
    expect(openaiRequest.messages[2].role).toBe('assistant');
    expect(typeof openaiRequest.messages[2].content).toBe('string');
    expect(JSON.stringify(openaiRequest.messages)).not.toContain('"thinking"');
    // Anthropic: its own signed thinking goes back, and OpenAI's tool call stays paired with its result.
    expect(anthropicRequest.messages[1].content[0].type).toBe('thinking');
    const toolUse = anthropicRequest.messages.flatMap((m: any) => m.content).find((b: any) => b.type === 'tool_use');
    const toolResult = anthropicRequest.messages.flatMap((m: any) => m.content).find((b: any) => b.type === 'tool_result');
    expect(toolUse.id).toBe(call.toolCallId);
    expect(toolResult.tool_use_id).toBe(call.toolCallId);
    checkHistoryInvariants(await history(id));
  });

  it('sends a lone surrogate, which the API refuses, as U+FFFD: a user’s text or a model’s tool arguments never fail the session’s later turns', async () => {
    // A client's JSON can hold half a surrogate pair; the history keeps it as it came.
    const id = newSessionId('an-lone');
    const first = await streamTurn(id, { messages: [user(`half a pair \ud800 here ${id}`)], model: A('claude-sonnet-4-text-ping') });
    expect(first.stop.stopReason).toBe('end_turn');
    expect((await history(id))[0].content).toBe(`half a pair \ud800 here ${id}`);
    const [sent] = await sentWith(id);
    expect(sent.messages[0].content.at(-1).text).toBe(`half a pair \ufffd here ${id}`);
    // Every later call sends the history again, and goes through.
    expect((await streamTurn(id, { messages: [user('and again')], model: A('claude-sonnet-4-text-ping') })).stop.stopReason).toBe('end_turn');

    // A model's tool arguments can hold one too (an escape in their JSON), and its next call sends them back.
    const tool = newSessionId('an-lone-tool');
    const { of, stop } = await streamTurn(tool, { messages: [user(`compute ${tool}`)], model: 'anthropic:script/surrogate' });
    expect(of('tool_call')[0]?.input).toEqual({ expression: '6*7\ud800' });
    expect(stop.stopReason).toBe('end_turn');
    const [, afterTool] = await sentWith(tool);
    expect(afterTool.messages[1].content[0]).toMatchObject({ type: 'tool_use', input: { expression: '6*7\ufffd' } });
  });

  it('leaves blank text out of what it sends, which the API refuses: a model’s "\\n\\n" before a tool call, a user’s spaces', async () => {
    const id = newSessionId('an-blank');
    const { of, stop } = await streamTurn(id, { messages: [user(`compute ${id}`)], model: 'anthropic:script/blank' });
    expect(of('tool_result')).toEqual([{ toolCallId: 'toolu_calc_1', content: '42' }]);
    expect(stop.stopReason).toBe('end_turn');
    // The history keeps the text as the model wrote it; the call after the tool's result leaves it out.
    expect((await history(id))[1].content[0]).toEqual({ type: 'text', text: '\n\n' });
    const [, afterTool] = await sentWith(id);
    expect(afterTool.messages[1]).toEqual({ role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_calc_1', name: 'calculator', input: { expression: '6*7' } }] });
    // Every later call sends that history again, and goes through.
    expect((await streamTurn(id, { messages: [user('thanks')], model: A('claude-sonnet-4-text-ping') })).stop.stopReason).toBe('end_turn');

    // A user message of spaces alone says "(empty)"; with an image beside it, the image goes alone.
    const spaces = newSessionId('an-spaces');
    expect((await streamTurn(spaces, { messages: [user('   ')], model: A('claude-sonnet-4-text-ping') })).stop.stopReason).toBe('end_turn');
    expect((await streamTurn(spaces, { messages: [user(`again ${spaces}`)], model: A('claude-sonnet-4-text-ping') })).stop.stopReason).toBe('end_turn');
    const [again] = await sentWith(spaces); // the first call's body does not name the session
    expect(again.messages[0]).toEqual({ role: 'user', content: [{ type: 'text', text: '(empty)' }] });
  });

  it('sends a refused call once more without the images of earlier messages: an image the API cannot read fails only the turn that sent it', async () => {
    const id = newSessionId('an-image');
    const broken = { type: 'image', mimeType: 'image/png', data: btoa('not a png at all') };
    const first = await streamTurn(id, { messages: [{ role: 'user', content: [{ type: 'text', text: `look ${id}` }, broken] }], model: A('claude-sonnet-4-text-ping') });
    expect(first.stop).toMatchObject({ stopReason: 'error', error: { code: 'upstream_error' } });
    const second = await streamTurn(id, { messages: [user(`and now? ${id}`)], model: A('claude-sonnet-4-text-ping') });
    expect(second.stop.stopReason).toBe('end_turn');
    const sent = await sentWith(id);
    expect(sent.map((body) => JSON.stringify(body.messages).includes('"media_type":"image/png"'))).toEqual([true, true, false]);
    expect(sent[2].messages[0].content[1]).toEqual({ type: 'text', text: "[An image shown earlier (image/png) is no longer sent: the model's server refused a request that held it.]" });
    // A real image goes through, and stays in what later calls send.
    const png = { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=' };
    const fine = newSessionId('an-png');
    expect((await streamTurn(fine, { messages: [{ role: 'user', content: [{ type: 'text', text: `look ${fine}` }, png] }], model: A('claude-sonnet-4-text-ping') })).stop.stopReason).toBe('end_turn');
    expect((await streamTurn(fine, { messages: [user(`and now? ${fine}`)], model: A('claude-sonnet-4-text-ping') })).stop.stopReason).toBe('end_turn');
    expect((await sentWith(fine)).map((body) => JSON.stringify(body.messages).includes(png.data))).toEqual([true, true]);
  });

  it('goes on when the images of earlier messages take the request past the API’s size (413 request_too_large)', async () => {
    const id = newSessionId('an-large');
    // A PNG's signature and a zero byte, then zeros: 1.8 MB an image, 2.4 MB of base64, over half the stand-in's limit.
    const data = `iVBORw0KGgoA${'A'.repeat(2_400_000)}`;
    expect(data.length * 2).toBeGreaterThan(ANTHROPIC_MAX_REQUEST_BYTES);
    const photo = (text: string) => ({ role: 'user', content: [{ type: 'text', text }, { type: 'image', mimeType: 'image/png', data }] });
    const model = A('claude-sonnet-4-text-ping');
    expect((await streamTurn(id, { messages: [photo(`first photo ${id}`)], model })).stop.stopReason).toBe('end_turn');
    // Two photos are more than the API takes in one request: the earlier one is left out, the new one goes.
    expect((await streamTurn(id, { messages: [photo(`second photo ${id}`)], model })).stop.stopReason).toBe('end_turn');
    // And the session goes on after them, where every later turn would have been refused: it
    // remembers, and sends the first photo's message without it at once.
    expect((await streamTurn(id, { messages: [user(`and now? ${id}`)], model })).stop.stopReason).toBe('end_turn');
    const images = (body: any) => JSON.stringify(body.messages).match(/<base64: \d+ characters>/g)?.length ?? 0;
    const sent = await sentWith(id);
    expect(sent.map((body) => [images(body), body.bytes > ANTHROPIC_MAX_REQUEST_BYTES])).toEqual([
      [1, false],
      [2, true],
      [1, false],
      [1, false],
    ]);
    expect(JSON.stringify(sent[2].messages[0])).toContain('An image shown earlier (image/png) is no longer sent');
    // The history keeps both photos as they came.
    const stored = await history(id);
    expect(stored.filter((m: any) => m.role === 'user' && m.content.some?.((b: any) => b.type === 'image' && b.data === data))).toHaveLength(2);
  });

  it('keeps a running total of the session’s usage', async () => {
    const id = newSessionId('usage');
    const first = await streamTurn(id, { messages: [user('one')], model: 'openai:replay/openai/gpt-4o-text-usage' });
    const second = await streamTurn(id, { messages: [user('two')], model: A('claude-sonnet-4-text-ping') });
    // The title's side call after the first exchange counts too; it replayed the first turn's recording.
    await expect.poll(async () => (await session(id)).body.title, { timeout: 5000 }).toBeDefined();
    const { body } = await session(id);
    expect(body.usage.inputTokens).toBe(2 * first.stop.usage.inputTokens + second.stop.usage.inputTokens);
    expect(body.usage.outputTokens).toBe(2 * first.stop.usage.outputTokens + second.stop.usage.outputTokens);
  });
});
