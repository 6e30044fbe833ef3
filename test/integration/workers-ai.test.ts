/**
 * The workers-ai provider end to end through the Worker, with the AI binding stubbed at its own
 * interface (`run(model, inputs)` resolving to a stream): native and OpenAI-style chunks, tool calls,
 * usage, failures, and the shapes real models answer in beyond those (test/helpers/ai-binding-stub.mjs).
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { checkHistoryInvariants, history, newSessionId, streamTurn, user } from '../helpers/api';

type StubCall = { model: string; inputs: { messages: { role: string; content: unknown }[]; tools?: unknown[]; stream: boolean } };
const stub = env.AI as unknown as { calls(): Promise<StubCall[]> };

describe('workers-ai provider through the Worker', () => {
  it('streams text with usage, and calls the binding with stream: true and the tools', async () => {
    const id = newSessionId('wai-text');
    const { of, stop } = await streamTurn(id, { messages: [user(`hi ${id}`)], model: 'workers-ai:stub/text' });
    expect(of('text_delta').map((d) => d.delta).join('')).toBe('Hello from Workers AI.');
    expect(stop).toMatchObject({ stopReason: 'end_turn', usage: { inputTokens: 12, outputTokens: 4 } });
    const call = (await stub.calls()).find((c) => JSON.stringify(c.inputs.messages).includes(id))!;
    expect(call.model).toBe('stub/text');
    expect(call.inputs.stream).toBe(true);
    expect(call.inputs.tools).toHaveLength(7);
  });

  it('runs a native tool call and continues with its result', async () => {
    const id = newSessionId('wai-native');
    const { of, stop } = await streamTurn(id, { messages: [user('compute')], model: 'workers-ai:stub/native-tool' });
    expect(of('tool_call')).toEqual([expect.objectContaining({ name: 'calculator', input: { expression: '6*7' } })]);
    expect(of('tool_result').map((r) => r.content)).toEqual(['42']);
    expect(of('text_delta').map((d) => d.delta).join('')).toBe('The tool said 42');
    expect(stop.stopReason).toBe('end_turn');
    checkHistoryInvariants(await history(id));
  });

  it('sends an answer that only called tools with empty content, which the binding takes (it refuses null), and the session goes on', async () => {
    const id = newSessionId('wai-null');
    await streamTurn(id, { messages: [user(`compute ${id}`)], model: 'workers-ai:stub/native-tool' });
    const { stop } = await streamTurn(id, { messages: [user('again')], model: 'workers-ai:stub/text' });
    expect(stop.stopReason).toBe('end_turn');
    // The turn's second call, after the tool's result (not the title's, which reads the session too).
    const second = (await stub.calls()).find((c) => JSON.stringify(c.inputs.messages).includes(id) && c.inputs.messages.at(-1)?.role === 'tool')!;
    const answer = second.inputs.messages.find((m) => m.role === 'assistant')!;
    expect(answer).toMatchObject({ content: '', tool_calls: [expect.objectContaining({ function: { name: 'calculator', arguments: '{"expression":"6*7"}' } })] });
  });

  it('takes a call streamed in pieces and closed by a piece that names nothing, and a finish reason outside choices', async () => {
    const id = newSessionId('wai-pieces');
    const { of, stop } = await streamTurn(id, { messages: [user('square')], model: 'workers-ai:stub/pieces' });
    expect(of('tool_call')).toEqual([expect.objectContaining({ toolCallId: 'call5x5', name: 'calculator', input: { expression: '5*5' } })]);
    expect(of('tool_result').map((r) => r.content)).toEqual(['25']);
    expect(stop.stopReason).toBe('end_turn');
    checkHistoryInvariants(await history(id));
  });

  it('reads thinking sent as `reasoning`, and a length stop sent outside choices', async () => {
    const id = newSessionId('wai-reasoning');
    const { of, stop } = await streamTurn(id, { messages: [user('hello')], model: 'workers-ai:stub/reasoning' });
    expect(of('thinking_delta').map((d) => d.delta).join('')).toBe('Thinking...');
    expect(of('text_delta').map((d) => d.delta).join('')).toBe('Hello');
    expect(stop).toMatchObject({ stopReason: 'max_tokens', usage: { inputTokens: 9, outputTokens: 7 } });
  });

  it('takes a whole answer from a model that does not stream, in either shape', async () => {
    const id = newSessionId('wai-whole');
    const { of, stop } = await streamTurn(id, { messages: [user('products')], model: 'workers-ai:stub/whole' });
    expect(of('thinking_delta').map((d) => d.delta).join('')).toBe('Two products.');
    expect(of('tool_call').map((c) => [c.toolCallId, c.input.expression])).toEqual([
      ['chatcmpl-tool-a', '3*3'],
      ['chatcmpl-tool-b', '4*4'],
    ]);
    expect(of('tool_result').map((r) => r.content).sort()).toEqual(['16', '9']);
    expect(of('text_delta').map((d) => d.delta).join('')).toBe('The tool said 16');
    expect(stop).toMatchObject({ stopReason: 'end_turn', usage: { inputTokens: 61, outputTokens: 13 } });
    checkHistoryInvariants(await history(id));
  });

  it('stops for a client tool and resumes with its result', async () => {
    const id = newSessionId('wai-client');
    const tools = [{ name: 'get_weather' }];
    const first = await streamTurn(id, { messages: [user('weather')], tools, model: 'workers-ai:stub/client-tool' });
    const call = first.of('tool_call')[0]!;
    expect(call).toMatchObject({ name: 'get_weather', input: { city: 'Oslo' } });
    expect(first.stop.stopReason).toBe('tool_use');
    const second = await streamTurn(id, { messages: [{ role: 'tool', toolCallId: call.toolCallId, content: 'snow' }], tools, model: 'workers-ai:stub/client-tool' });
    expect(second.of('text_delta').map((d) => d.delta).join('')).toBe('The tool said snow');
    checkHistoryInvariants(await history(id));
  });

  it('reads OpenAI-style chunks: reasoning and parallel tool calls', async () => {
    const id = newSessionId('wai-openai');
    const { of, stop } = await streamTurn(id, { messages: [user('sums')], model: 'workers-ai:stub/openai-tools' });
    expect(of('thinking_delta').map((d) => d.delta).join('')).toBe('Two sums.');
    expect(of('tool_call').map((c) => [c.toolCallId, c.input.expression])).toEqual([
      ['chatcmpl-tool-1', '1+1'],
      ['chatcmpl-tool-2', '2+2'],
    ]);
    expect(of('tool_result').map((r) => r.content).sort()).toEqual(['2', '4']);
    expect(stop.stopReason).toBe('end_turn');
  });

  it.each([
    ['a stream cut before [DONE]', 'workers-ai:stub/cut', 'upstream_cut'],
    ['a run that fails', 'workers-ai:stub/unavailable', 'upstream_error'],
  ])('ends the turn with error on %s', async (_label, model, code) => {
    const id = newSessionId('wai-fail');
    const { stop } = await streamTurn(id, { messages: [user('x')], model });
    expect(stop).toMatchObject({ stopReason: 'error', error: { code } });
    expect(await history(id)).toEqual([{ role: 'user', content: 'x' }]);
  });
});
