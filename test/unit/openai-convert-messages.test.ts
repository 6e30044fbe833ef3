/**
 * The history in the shape of Chat Completions (src/providers/openai/convert-messages.ts): tool call
 * ids as OpenAI takes them (one over 40 characters goes under a short name made from it), and the
 * reasoning sent back only when asked for.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { historyMessage } from '../helpers/history-arbitrary';
import type { HistoryMessage } from '../../src/api/content';
import { convertMessages, NO_ANSWER } from '../../src/providers/openai/convert-messages';
import { nineCharacterId, openaiToolCallId as toolCallId } from '../../src/providers/openai/tool-call-ids';

describe('toolCallId', () => {
  it('keeps an id of up to 40 characters as it is', () => {
    for (const id of ['call_7kE4IjtnwXcGbX6hDM7xFu8T', 'functions.add:0', 'x'.repeat(40)]) expect(toolCallId(id)).toBe(id);
  });

  it('names a longer one by its first 23 characters and its 64-bit FNV-1a hash', () => {
    // FNV-1a 64 of "x" * 40 + "a", computed with BigInt.
    expect(toolCallId(`${'x'.repeat(40)}a`)).toBe(`${'x'.repeat(23)}_5840f64ba4538bac`);
    expect(toolCallId('chatcmpl-tool-0d4e5a1b2c3d4e5f60718293a4b5c6d7')).toMatch(/^chatcmpl-tool-0d4e5a1b2_[0-9a-f]{16}$/);
  });

  it('maps every id to at most 40 characters, the same id to the same name, and different ids apart', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 0, maxLength: 120 }), fc.string({ minLength: 0, maxLength: 120 }), (a, b) => {
        expect(toolCallId(a).length).toBeLessThanOrEqual(40);
        expect(toolCallId(a)).toBe(toolCallId(a));
        if (a !== b && (a.length > 40 || b.length > 40)) expect(toolCallId(a)).not.toBe(toolCallId(b));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('nineCharacterId', () => {
  it('keeps an id of nine letters and digits, and makes nine of any other, the same for the same id', () => {
    expect(nineCharacterId('D681PevKs')).toBe('D681PevKs');
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), fc.string({ maxLength: 80 }), (a, b) => {
        expect(nineCharacterId(a)).toMatch(/^[A-Za-z0-9]{9}$/);
        expect(nineCharacterId(a)).toBe(nineCharacterId(a));
        if (a !== b && !/^[A-Za-z0-9]{9}$/.test(a) && !/^[A-Za-z0-9]{9}$/.test(b)) expect(nineCharacterId(a)).not.toBe(nineCharacterId(b));
      }),
      { numRuns: 2000 },
    );
  });

  it('gives each earlier call Google’s value for a signature not at hand, only in that dialect', () => {
    const history: HistoryMessage[] = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [{ type: 'tool_use', toolCallId: 'call_1', name: 'calculator', input: {} }] },
      { role: 'tool', toolCallId: 'call_1', content: '4' },
    ];
    const call = (dialect = {}) => (convertMessages('', history, dialect)[1] as any).tool_calls[0];
    expect(call({ thoughtSignatures: true }).extra_content).toEqual({ google: { thought_signature: 'skip_thought_signature_validator' } });
    expect(call()).not.toHaveProperty('extra_content');
  });

  it('is what a call and its result both carry in that dialect', () => {
    const history: HistoryMessage[] = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [{ type: 'tool_use', toolCallId: 'call_calc_1', name: 'calculator', input: {} }] },
      { role: 'tool', toolCallId: 'call_calc_1', content: '4' },
    ];
    const [, call, result] = convertMessages('', history, { nineCharacterIds: true }) as any[];
    expect(call.tool_calls[0].id).toMatch(/^[A-Za-z0-9]{9}$/);
    expect(result.tool_call_id).toBe(call.tool_calls[0].id);
  });
});

describe('convertMessages, reasoning', () => {
  const history: HistoryMessage[] = [
    { role: 'user', content: 'weather?' },
    { role: 'assistant', content: [{ type: 'thinking', thinking: 'Look it up.' }, { type: 'tool_use', toolCallId: 'call_1', name: 'weather', input: {} }] },
    { role: 'tool', toolCallId: 'call_1', content: 'sunny' },
    { role: 'assistant', content: [{ type: 'thinking', thinking: 'hidden', signature: 'x', redacted: true }, { type: 'text', text: 'Sunny.' }] },
    { role: 'assistant', content: 'Anything else?' },
  ];
  const assistants = (reasoningBack?: boolean) => convertMessages('', history, { reasoningBack }).filter((m) => m.role === 'assistant');

  it('leaves thinking out by default: most servers take no field for it', () => {
    for (const message of assistants()) expect(message).not.toHaveProperty('reasoning_content');
  });

  it('gives each assistant message its thinking as reasoning_content when asked, an empty one for none or redacted', () => {
    expect(assistants(true).map((m) => 'reasoning_content' in m && m.reasoning_content)).toEqual(['Look it up.', '', '']);
  });
});

describe('convertMessages, alternating', () => {
  it('gives a strict chat template one system message first, then user and assistant in turn', () => {
    const history: HistoryMessage[] = [
      { role: 'user', content: 'one' },
      { role: 'assistant', content: 'Hi.' },
      // A turn that failed before its answer, then a message with a system message before it.
      { role: 'user', content: 'two' },
      { role: 'system', content: 'Answer in French.' },
      { role: 'user', content: [{ type: 'text', text: 'three' }, { type: 'image', url: 'https://images.example/a.png' }] },
      { role: 'assistant', content: [{ type: 'tool_use', toolCallId: 'call_1', name: 'weather', input: {} }] },
      { role: 'tool', toolCallId: 'call_1', content: 'sunny' },
      { role: 'assistant', content: 'Ensoleillé.' },
    ];
    expect(convertMessages('Be brief.', history, { alternating: true })).toEqual([
      { role: 'system', content: 'Be brief.\n\nAnswer in French.' },
      { role: 'user', content: 'one' },
      { role: 'assistant', content: 'Hi.' },
      { role: 'user', content: [{ type: 'text', text: 'two' }, { type: 'text', text: 'three' }, { type: 'image_url', image_url: { url: 'https://images.example/a.png' } }] },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
      { role: 'assistant', content: 'Ensoleillé.' },
    ]);
    // Otherwise as they stand: OpenAI takes a system message anywhere.
    expect(convertMessages('Be brief.', history).map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'system', 'user', 'assistant', 'tool', 'assistant']);
  });

  it('reads as the template does, tool calls and results unread: a turn stopped after its tools ran gets an answer that says so', () => {
    const history: HistoryMessage[] = [
      { role: 'user', content: 'one' },
      { role: 'assistant', content: [{ type: 'text', text: 'Let me look.' }, { type: 'tool_use', toolCallId: 'call_1', name: 'weather', input: {} }] },
      { role: 'tool', toolCallId: 'call_1', content: 'sunny' },
      // The turn's next call failed: the user speaks again after the results.
      { role: 'user', content: 'two' },
      { role: 'assistant', content: [{ type: 'tool_use', toolCallId: 'call_2', name: 'weather', input: {} }] },
      { role: 'tool', toolCallId: 'call_2', content: 'rain' },
      { role: 'assistant', content: 'Rain.' },
    ];
    expect(convertMessages('', history, { alternating: true }).map((m) => [m.role, m.content, 'tool_calls' in m ? (m.tool_calls?.length ?? 0) : 0])).toEqual([
      ['user', 'one', 0],
      ['assistant', 'Let me look.', 1],
      ['tool', 'sunny', 0],
      ['assistant', NO_ANSWER, 0],
      ['user', 'two', 0],
      ['assistant', null, 1],
      ['tool', 'rain', 0],
      ['assistant', 'Rain.', 0],
    ]);
  });

  it('joins two user texts by a blank line, and two answers in a row', () => {
    const history: HistoryMessage[] = [
      { role: 'user', content: 'a' },
      { role: 'user', content: 'b' },
      { role: 'assistant', content: 'c' },
      { role: 'assistant', content: 'd' },
    ];
    expect(convertMessages('', history, { alternating: true })).toEqual([
      { role: 'user', content: 'a\n\nb' },
      { role: 'assistant', content: 'c\n\nd' },
    ]);
  });
});

describe('convertMessages, once per message', () => {
  const history = (): HistoryMessage[] => [
    { role: 'user', content: 'a' },
    { role: 'user', content: 'b' },
    { role: 'assistant', content: [{ type: 'tool_use', toolCallId: `call_${'x'.repeat(40)}`, name: 'weather', input: { city: 'Oslo' } }] },
    { role: 'tool', toolCallId: `call_${'x'.repeat(40)}`, content: 'rain', isError: true },
    { role: 'assistant', content: 'Rain.' },
  ];

  it('gives the same message under the same dialect the same conversion, and another dialect its own', () => {
    const messages = history();
    const first = convertMessages('', messages);
    expect(convertMessages('', messages)).toEqual(first);
    first.forEach((converted, index) => expect(convertMessages('', messages)[index]).toBe(converted));
    const mistral = convertMessages('', messages, { nineCharacterIds: true });
    expect(mistral[2]).toMatchObject({ tool_calls: [{ id: nineCharacterId(`call_${'x'.repeat(40)}`) }] });
    expect(mistral[3]).toMatchObject({ tool_call_id: nineCharacterId(`call_${'x'.repeat(40)}`) });
    expect(convertMessages('', messages)).toEqual(first);
    expect(convertMessages('', messages)[2]).toMatchObject({ tool_calls: [{ id: toolCallId(`call_${'x'.repeat(40)}`) }] });
  });

  it('keeps what it converted as it was when a strict template joins messages', () => {
    const messages = history();
    expect(convertMessages('', messages, { alternating: true })[0]).toEqual({ role: 'user', content: 'a\n\nb' });
    expect(convertMessages('', messages).slice(0, 2)).toEqual([
      { role: 'user', content: 'a' },
      { role: 'user', content: 'b' },
    ]);
  });

  it('converts a history, however often and in whatever dialects, as it converts a fresh copy of it', () => {
    const message = historyMessage(fc.string({ maxLength: 8 }), fc.string({ minLength: 1, maxLength: 50 }));
    const dialect = fc.record({ nineCharacterIds: fc.boolean(), thoughtSignatures: fc.boolean(), reasoningBack: fc.boolean(), alternating: fc.boolean() });
    fc.assert(
      fc.property(fc.array(message, { maxLength: 8 }), fc.array(dialect, { minLength: 1, maxLength: 4 }), (messages, dialects) => {
        for (const each of dialects) expect(convertMessages('sys', messages, each)).toEqual(convertMessages('sys', structuredClone(messages), each));
      }),
      { numRuns: 300 },
    );
  });
});
