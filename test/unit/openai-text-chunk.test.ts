/**
 * The hand-read text chunk (src/providers/openai/text-chunk.ts) against the schema it shortcuts:
 * for any JSON, it gives nothing or exactly what `chatChunkSchema` gives, and it takes the plain text
 * chunks real servers send.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chatChunkSchema } from '../../src/providers/openai/chunk-schema';
import { textChunk } from '../../src/providers/openai/text-chunk';

/**
 * Values near the chunk's shape, as JSON.parse would give them: most fields absent or null, as in a
 * text chunk, some odd. (`undefined` stands for an absent key: the JSON round trip drops it.)
 */
const odd = fc.oneof(fc.constant(null), fc.string(), fc.integer(), fc.boolean(), fc.constant([]), fc.constant({}));
const maybe = <T>(value: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: fc.constant(undefined), weight: 8 }, { arbitrary: fc.constant(null), weight: 3 }, { arbitrary: value, weight: 1 }, { arbitrary: odd, weight: 1 });
const delta = fc.record({
  content: fc.oneof({ arbitrary: fc.string(), weight: 4 }, { arbitrary: odd, weight: 1 }),
  refusal: maybe(fc.string()),
  reasoning_content: maybe(fc.string()),
  reasoning: maybe(fc.string()),
  tool_calls: maybe(fc.constant([{ index: 0, id: 'call_1', function: { name: 'f', arguments: '{}' } }])),
  role: maybe(fc.constant('assistant')),
});
const choice = fc.record({
  index: maybe(fc.constant(0)),
  delta: fc.oneof({ arbitrary: delta, weight: 6 }, { arbitrary: maybe(odd), weight: 1 }),
  finish_reason: maybe(fc.constantFrom('stop', 'length')),
  logprobs: maybe(fc.constant(null)),
});
const chunk = fc
  .record({
    id: maybe(fc.constant('chatcmpl-1')),
    choices: fc.oneof({ arbitrary: fc.tuple(choice), weight: 6 }, { arbitrary: fc.array(choice, { maxLength: 2 }), weight: 1 }, { arbitrary: maybe(odd), weight: 1 }),
    usage: maybe(fc.record({ prompt_tokens: fc.nat(), completion_tokens: fc.nat() })),
    error: maybe(fc.record({ message: fc.string() })),
  })
  .map((value) => JSON.parse(JSON.stringify(value)) as unknown);

describe('the hand-read text chunk', () => {
  it('gives nothing or what the schema gives, for any value near the shape', () => {
    let taken = 0;
    fc.assert(
      fc.property(fc.oneof({ arbitrary: chunk, weight: 8 }, { arbitrary: fc.jsonValue(), weight: 1 }), (json) => {
        const fast = textChunk(json);
        if (fast === undefined) return;
        taken++;
        const parsed = chatChunkSchema().safeParse(json);
        expect(parsed.success).toBe(true);
        expect(fast).toStrictEqual(parsed.data);
      }),
      { numRuns: 2000 },
    );
    // The generator reaches the hand-read path often enough for the property to say something.
    expect(taken).toBeGreaterThan(100);
  });

  it('takes the text chunks of real servers, and leaves the rest to the schema', () => {
    const text = { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: 'Hi' }, logprobs: null, finish_reason: null }] };
    expect(textChunk(text)).toStrictEqual({ choices: [{ delta: { content: 'Hi' }, finish_reason: null }] });
    expect(textChunk({ ...text, usage: null })).toStrictEqual({ choices: [{ delta: { content: 'Hi' }, finish_reason: null }], usage: null });
    // A role chunk with empty content is still text; a usage, a tool call or thinking is not.
    expect(textChunk({ choices: [{ delta: { role: 'assistant', content: '' } }] })).toStrictEqual({ choices: [{ delta: { content: '' } }] });
    expect(textChunk({ choices: [], usage: { prompt_tokens: 1 } })).toBeUndefined();
    expect(textChunk({ choices: [{ delta: { content: null, tool_calls: [{ index: 0 }] } }] })).toBeUndefined();
    expect(textChunk({ choices: [{ delta: { content: '', reasoning_content: 'hm' } }] })).toBeUndefined();
  });
});
