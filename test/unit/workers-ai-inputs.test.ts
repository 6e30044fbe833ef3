/**
 * The Workers AI binding's inputs (src/providers/workers-ai/workers-ai-provider.ts): the history in
 * Chat Completions' shape with text content only, no `content: null`, lone surrogates mended, each
 * history message's part made once and kept with it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { historyMessage } from '../helpers/history-arbitrary';
import { plainText, type HistoryMessage } from '../../src/api/content';
import { wellFormedJson } from '../../src/lib/well-formed-json';
import { convertMessages, convertTools } from '../../src/providers/openai/convert-messages';
import { buildInputs } from '../../src/providers/workers-ai/workers-ai-provider';
import type { ModelRequest, ToolSpec } from '../../src/providers/types';

const TOOL: ToolSpec = { name: 'lookup', description: 'Looks up \ud800 a word.', parameters: { type: 'object', properties: { word: { type: 'string' } } } };

function request(messages: HistoryMessage[], extra: Partial<ModelRequest> = {}): ModelRequest {
  return { model: '@cf/meta/llama', system: 'Be brief.', messages, tools: [TOOL], signal: new AbortController().signal, ...extra };
}

/** What the inputs hold, written from scratch: every message converted and the whole mended at once (as JSON). */
function fromScratch(req: ModelRequest, maxTokens: number): string {
  const flat = req.messages.map((message) => (message.role === 'user' && typeof message.content !== 'string' ? { role: 'user' as const, content: plainText(message.content) } : message));
  const messages = convertMessages(req.system, structuredClone(flat)).map((message) => (message.content === null ? { ...message, content: '' } : message));
  const inputs: Record<string, unknown> = { messages, stream: true, max_tokens: req.maxTokens ?? maxTokens };
  if (req.tools.length > 0 && req.toolChoice !== 'none') inputs.tools = convertTools(req.tools);
  if (req.temperature !== undefined) inputs.temperature = req.temperature;
  return wellFormedJson(inputs);
}

const withImages: HistoryMessage = {
  role: 'user',
  content: [
    { type: 'text', text: 'What is this?' },
    { type: 'image', url: 'https://example.com/cat.png' },
  ],
};
const onlyCalls: HistoryMessage = { role: 'assistant', content: [{ type: 'tool_use', toolCallId: 'call_1', name: 'lookup', input: { word: 'cat' } }] };
const lone: HistoryMessage = { role: 'tool', toolCallId: 'call_1', content: 'half of a pair: \udc00' };

describe('the Workers AI inputs', () => {
  it('flattens blocks, names images, sends "" for an answer of calls only, and mends lone surrogates in the history and the tools', () => {
    const inputs = buildInputs(request([withImages, onlyCalls, lone], { temperature: 0.2 }), 512);
    expect(inputs).toEqual({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'What is this?\n[image]' },
        { role: 'assistant', content: '', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"word":"cat"}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: 'half of a pair: \ufffd' },
      ],
      stream: true,
      max_tokens: 512,
      tools: [{ type: 'function', function: { name: 'lookup', description: 'Looks up \ufffd a word.', parameters: TOOL.parameters } }],
      temperature: 0.2,
    });
  });

  it('leaves out the tools when the call may not use them, and the system message when there is none', () => {
    const inputs = buildInputs(request([withImages], { toolChoice: 'none', system: '', maxTokens: 64 }), 512);
    expect(inputs).toEqual({ messages: [{ role: 'user', content: 'What is this?\n[image]' }], stream: true, max_tokens: 64 });
  });

  it('makes each history message once: a later call with the same history sends the same parts', () => {
    const history = [withImages, onlyCalls, lone];
    const first = buildInputs(request(history), 512).messages as unknown[];
    const second = buildInputs(request([...history, { role: 'user', content: 'and now?' }]), 512).messages as unknown[];
    // The system message is made at each call; each history message's part is the one kept.
    for (let index = 1; index < first.length; index++) expect(second[index]).toBe(first[index]);
  });

  it('holds, for any history and any order of calls, what the inputs written from scratch hold', () => {
    const text = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('\ud800', 'a\udfffb', '\ud83d\ude00'));
    const message = historyMessage(text, fc.string({ minLength: 1, maxLength: 12 }));
    fc.assert(
      fc.property(fc.array(message, { maxLength: 8 }), fc.array(fc.nat(8), { minLength: 1, maxLength: 4 }), fc.boolean(), (history, cuts, offerTools) => {
        // Calls over prefixes of one history, in any order: a part kept at one call serves every later one.
        for (const cut of cuts) {
          const req = request(history.slice(0, cut), offerTools ? {} : { toolChoice: 'none' });
          expect(buildInputs(req, 256)).toEqual(JSON.parse(fromScratch(req, 256)));
        }
      }),
      { numRuns: 300 },
    );
  });
});
