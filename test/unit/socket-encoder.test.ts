/** The chat protocol's socket encoder as a pure function of internal events: what each ending becomes, sentences per message. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AgentEvent, StopReason, ToolExecution } from '../../src/agent/events';
import { emptyUsage } from '../../src/agent/usage';
import { createSocketEncoder } from '../../src/protocol/socket-encoder';
import { ALL_VISIBLE, type ServerFrame } from '../../src/protocol/socket-frames';

const encoder = (reasoning = false) =>
  createSocketEncoder({ conversationId: 'conv-1', requestId: 'req-1', reasoning, visibility: (name) => (name === 'secret' ? { ...ALL_VISIBLE, show_arguments: false } : ALL_VISIBLE) });

const encodeAll = (events: AgentEvent[], reasoning = false): ServerFrame[] => {
  const socket = encoder(reasoning);
  return events.flatMap((event) => socket.encode(event));
};

const stop = (stopReason: StopReason, error?: { code: string; message: string }): AgentEvent => ({
  type: 'turn-stop',
  turnId: 't',
  stopReason,
  at: 0,
  usage: emptyUsage(),
  modelCalls: [],
  calibration: 1,
  ...(error ? { error } : {}),
});

const call = (callId: string): AgentEvent => ({ type: 'model-call-start', callId, step: 1, model: 'demo:demo', toolsOffered: true, estimatedInputTokens: 0, at: 0 });

function textBlock(blockId: string, deltas: string[]): AgentEvent[] {
  return [
    { type: 'text-start', callId: 'c', blockId, contentIndex: 0 },
    ...deltas.map((delta): AgentEvent => ({ type: 'text-delta', blockId, delta })),
    { type: 'text-end', blockId, text: deltas.join('') },
  ];
}

describe('the socket encoder', () => {
  it('counts sentences per message, across its text blocks, from 0 again in the next message', () => {
    const frames = encodeAll([
      { type: 'turn-start', turnId: 't', model: 'demo:demo', at: 0 },
      call('c1'),
      ...textBlock('b1', ['One. Tw', 'o. ']),
      ...textBlock('b2', ['Three.']),
      call('c2'),
      ...textBlock('b3', ['Four. Five.']),
      stop('end_turn'),
    ]);
    const sentences = frames.filter((frame) => frame.type === 'llm_text_sentence');
    expect(sentences).toEqual([
      { type: 'llm_text_sentence', sentence: 'One. ', index: 0 },
      { type: 'llm_text_sentence', sentence: 'Two. ', index: 1 },
      { type: 'llm_text_sentence', sentence: 'Three.', index: 2 },
      { type: 'llm_text_sentence', sentence: 'Four. ', index: 0 },
      { type: 'llm_text_sentence', sentence: 'Five.', index: 1 },
    ]);
    expect(frames[0]).toEqual({ type: 'completion_init', conversation_id: 'conv-1', user_character_config_id: null });
    expect(frames.at(-1)).toEqual({ type: 'completion_done', finish_reason: 'stop' });
  });

  it('the sentences of a message join to its chunks, however the text was cut (property)', () => {
    const piece = fc.constantFrom('Hi. ', 'e.g. ', '3.14', '中文。', '\n', 'https://a.io/x.y ', 'ok', '! ', '…', '”');
    fc.assert(
      fc.property(fc.array(fc.array(piece, { maxLength: 6 }).map((parts) => parts.join('')), { maxLength: 12 }), (deltas) => {
        const frames = encodeAll([call('c'), ...textBlock('b', deltas)]);
        const chunks = frames.filter((frame) => frame.type === 'llm_text_chunk').map((frame) => frame.chunk);
        const sentences = frames.filter((frame) => frame.type === 'llm_text_sentence');
        expect(sentences.map((frame) => frame.sentence).join('')).toBe(chunks.join(''));
        expect(sentences.map((frame) => frame.index)).toEqual(sentences.map((_, index) => index));
      }),
    );
  });

  it.each<[StopReason, string | undefined, string]>([
    ['end_turn', undefined, 'stop'],
    ['tool_use', undefined, 'tool_calls'],
    ['max_tokens', 'output_limit', 'length'],
    ['refusal', undefined, 'content_filter'],
    ['error', 'upstream_error', 'error'],
  ])('a turn that stops with %s (%s) ends with completion_done %s', (stopReason, code, finish) => {
    const frames = encodeAll([stop(stopReason, code ? { code, message: 'm' } : undefined)]);
    expect(frames.at(-1)).toEqual({ type: 'completion_done', finish_reason: finish });
    const errors = frames.filter((frame) => frame.type === 'error');
    expect(errors).toEqual(stopReason === 'error' ? [{ type: 'error', code, message: 'm', request_id: 'req-1' }] : []);
  });

  it('a cancel: no whole message, the partial text in stop_completion, then done', () => {
    const frames = encodeAll([
      call('c'),
      { type: 'text-start', callId: 'c', blockId: 'b', contentIndex: 0 },
      { type: 'text-delta', blockId: 'b', delta: 'Half an ans' },
      { type: 'text-end', blockId: 'b', text: 'Half an ans', incomplete: true },
      { type: 'assistant-message', message: { role: 'assistant', content: [{ type: 'text', text: 'Half an ans' }] }, finishReason: 'cancelled', usage: emptyUsage() },
      stop('error', { code: 'cancelled', message: 'The turn was cancelled.' }),
    ]);
    expect(frames.map((frame) => frame.type)).toEqual(['llm_text_chunk', 'llm_text_sentence', 'stop_completion', 'completion_done']);
    expect(frames.slice(-2)).toEqual([
      { type: 'stop_completion', partial_text: 'Half an ans' },
      { type: 'completion_done', finish_reason: 'stop' },
    ]);
  });

  it.each<[ToolExecution, string]>([
    ['trusted', 'none'],
    ['untrusted', 'pending'],
    ['client', 'awaiting_input'],
    ['unknown', 'none'],
  ])('a %s tool streams with confirmation_state %s, its visibility, and keeps both in the whole message', (execution, state) => {
    const frames = encodeAll([
      call('c'),
      { type: 'tool-input-start', callId: 'c', blockId: 'b', contentIndex: 0, toolCallId: 'call_1', name: 'secret', execution },
      { type: 'tool-input-delta', blockId: 'b', toolCallId: 'call_1', delta: '{"a":' },
      { type: 'tool-input-delta', blockId: 'b', toolCallId: 'call_1', delta: '1}' },
      { type: 'tool-input-end', blockId: 'b', toolCallId: 'call_1', name: 'secret', input: { a: 1 } },
      {
        type: 'assistant-message',
        message: { role: 'assistant', content: [{ type: 'tool_use', toolCallId: 'call_1', name: 'secret', input: { a: 1 } }] },
        finishReason: 'tool_use',
        usage: emptyUsage(),
      },
    ]);
    const flags = { show_name: true, show_arguments: false, show_result: true, confirmation_state: state };
    expect(frames.slice(0, 3)).toEqual([
      { type: 'tool_call_chunk', index: 0, id: 'call_1', function: { name: 'secret', arguments: '' }, ...flags },
      { type: 'tool_call_chunk', index: 0, id: null, function: { name: null, arguments: '{"a":' }, ...flags },
      { type: 'tool_call_chunk', index: 0, id: null, function: { name: null, arguments: '1}' }, ...flags },
    ]);
    expect(frames[3]).toMatchObject({
      type: 'assistant_message_complete',
      content: '',
      finish_reason: 'tool_calls',
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'secret', arguments: '{"a":1}' }, ...flags }],
    });
  });

  it('thinking only in reasoning mode; a client result and server notices as frames', () => {
    const events: AgentEvent[] = [
      call('c'),
      { type: 'thinking-start', callId: 'c', blockId: 'th', contentIndex: 0 },
      { type: 'thinking-delta', blockId: 'th', delta: 'Let me think. Done.' },
      { type: 'thinking-end', blockId: 'th', thinking: 'Let me think. Done.' },
      {
        type: 'assistant-message',
        message: { role: 'assistant', content: [{ type: 'thinking', thinking: 'Let me think. Done.' }, { type: 'text', text: 'Hi' }] },
        finishReason: 'end_turn',
        usage: emptyUsage(),
      },
      { type: 'tool-answer', toolCallId: 'call_9', name: 'ask', input: {}, answer: { kind: 'result', content: [{ type: 'text', text: 'yes' }], isError: false } },
      { type: 'model-call-retry', callId: 'c', attempt: 1, delayMs: 1500, error: { code: 'rate_limited', message: 'm' } },
      { type: 'iteration-limit', maxIterations: 3, step: 4 },
    ];
    const plain = encodeAll(events);
    expect(plain.some((frame) => frame.type.startsWith('llm_thinking'))).toBe(false);
    expect(plain.find((frame) => frame.type === 'assistant_message_complete')).toMatchObject({ thinking: null, content: 'Hi' });
    expect(plain.find((frame) => frame.type === 'tool_call')).toEqual({ type: 'tool_call', id: 'call_9', result: 'yes', show_result: true });
    expect(plain.filter((frame) => frame.type === 'system_notification').map((frame) => (frame as { message: string }).message)).toEqual([
      'The model did not answer (rate_limited); trying again in 1.5 s.',
      'The agent reached its limit of 3 tool rounds and answers without tools.',
    ]);

    const reasoning = encodeAll(events, true);
    expect(reasoning.filter((frame) => frame.type === 'llm_thinking_sentence')).toEqual([
      { type: 'llm_thinking_sentence', sentence: 'Let me think. ', index: 0 },
      { type: 'llm_thinking_sentence', sentence: 'Done.', index: 1 },
    ]);
    expect(reasoning.find((frame) => frame.type === 'assistant_message_complete')).toMatchObject({ thinking: 'Let me think. Done.' });
  });
});
