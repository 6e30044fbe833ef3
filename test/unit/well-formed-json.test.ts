/**
 * What leaves for a provider is JSON a strict parser takes (src/lib/well-formed-json.ts): every lone
 * surrogate, in a key or a value, sent as U+FFFD; everything else exactly as `JSON.stringify` writes it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { wellFormed, wellFormedJson, wellFormedJsonWithItems } from '../../src/lib/well-formed-json';
import { LONE_SURROGATE_ESCAPE } from '../helpers/strict-json';

const strictRefuses = (json: string) => LONE_SURROGATE_ESCAPE.test(json);
const mended = (text: string) => (text as string & { toWellFormed(): string }).toWellFormed();

describe('wellFormedJson', () => {
  it('mends lone surrogates in values and keys, and leaves pairs, escaped backslashes and the rest alone', () => {
    expect(wellFormedJson({ text: 'a\ud800b', '\udc00key': ['\ud83d'] })).toBe('{"text":"a\\ufffdb","\\ufffdkey":["\\ufffd"]}');
    expect(wellFormedJson(['😀', '\\ud800', '\\\ud800'])).toBe('["😀","\\\\ud800","\\\\\\ufffd"]');
    const plain = { messages: [{ role: 'user', content: 'hello "there" C:\\dir' }] };
    expect(wellFormedJson(plain)).toBe(JSON.stringify(plain));
    expect(wellFormed(plain)).toBe(plain);
  });

  it('gives, for any strings, JSON a strict parser takes that reads back as the strings made well-formed', () => {
    const text = fc.string({ unit: 'binary', maxLength: 40 });
    fc.assert(
      fc.property(fc.dictionary(text, fc.oneof(text, fc.array(text, { maxLength: 4 }))), (value) => {
        const json = wellFormedJson(value);
        expect(strictRefuses(json)).toBe(false);
        const expected = Object.fromEntries(Object.entries(value).map(([key, item]) => [mended(key), Array.isArray(item) ? item.map(mended) : mended(item)]));
        expect(JSON.parse(json)).toEqual(expected);
        expect(wellFormed(value)).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });
});

describe('wellFormedJsonWithItems', () => {
  it('writes the body as wellFormedJson does, its items first, each item the same string every time', () => {
    const message = { role: 'user', content: 'a\ud800b' };
    const body = { model: 'm', messages: [message, { role: 'assistant', content: 'ok' }], stream: true };
    const json = wellFormedJsonWithItems(body, 'messages');
    expect(json).toBe('{"messages":[{"role":"user","content":"a\\ufffdb"},{"role":"assistant","content":"ok"}],"model":"m","stream":true}');
    expect(wellFormedJsonWithItems({ messages: [message] }, 'messages')).toBe('{"messages":[{"role":"user","content":"a\\ufffdb"}]}');
    expect(wellFormedJsonWithItems({ model: 'm' }, 'messages')).toBe('{"model":"m"}');
  });

  it('reads back, for any body, as wellFormedJson of it does, and a strict parser takes it', () => {
    const text = fc.string({ unit: 'binary', maxLength: 20 });
    const item = fc.oneof(fc.dictionary(text, fc.oneof(text, fc.array(text, { maxLength: 3 }))), text, fc.constant(null), fc.integer());
    fc.assert(
      fc.property(fc.array(item, { maxLength: 6 }), fc.dictionary(text.filter((key) => key !== 'messages'), text, { maxKeys: 4 }), (items, rest) => {
        const body = { ...rest, messages: items };
        for (let again = 0; again < 2; again++) {
          const json = wellFormedJsonWithItems(body, 'messages');
          expect(strictRefuses(json)).toBe(false);
          expect(JSON.parse(json)).toEqual(JSON.parse(wellFormedJson(body)));
        }
      }),
      { numRuns: 500 },
    );
  });
});
