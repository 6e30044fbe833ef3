/** The sentence splitter of the chat protocol (docs/chat-socket.md): examples, and properties over random text cut into random deltas. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SentenceSplitter, splitSentences } from '../../src/protocol/sentence-splitter';

function streamed(text: string, cuts: number[]): string[] {
  const splitter = new SentenceSplitter();
  const sentences: { sentence: string; index: number }[] = [];
  let from = 0;
  for (const cut of [...new Set(cuts.map((c) => Math.min(c, text.length)))].sort((a, b) => a - b)) {
    sentences.push(...splitter.push(text.slice(from, cut)));
    from = cut;
  }
  sentences.push(...splitter.push(text.slice(from)), ...splitter.flush());
  expect(sentences.map((s) => s.index)).toEqual(sentences.map((_, i) => i));
  return sentences.map((s) => s.sentence);
}

describe('the sentence splitter', () => {
  it.each([
    ['Hello there. How are you? Fine!', ['Hello there. ', 'How are you? ', 'Fine!']],
    ['今天天气很好。我们去公园吧！好吗？', ['今天天气很好。', '我们去公园吧！', '好吗？']],
    ['Pi is 3.14 today. Yes.', ['Pi is 3.14 today. ', 'Yes.']],
    ['See e.g. the docs. Then go.', ['See e.g. the docs. ', 'Then go.']],
    ['Dr. Smith met Mr. Jones. They talked.', ['Dr. Smith met Mr. Jones. ', 'They talked.']],
    ['Visit https://example.com/a.b?x=1. Then stop.', ['Visit https://example.com/a.b?x=1. ', 'Then stop.']],
    ['Line one\nLine two\n\nLine three', ['Line one\n', 'Line two\n\n', 'Line three']],
    ['He said "Stop." Then he left.', ['He said "Stop." ', 'Then he left.']],
    ['Wait... what?! Really.', ['Wait... ', 'what?! ', 'Really.']],
    ['J. K. Rowling wrote it. Good.', ['J. K. Rowling wrote it. ', 'Good.']],
    ['他说：「你好。」然后走了。', ['他说：「你好。」', '然后走了。']],
    ['', []],
  ])('splits %j', (text, sentences) => {
    expect(splitSentences(text)).toEqual(sentences);
    expect(streamed(text, [1, 2, 3, 5, 8, 13, 21])).toEqual(sentences);
  });

  const alphabet = fc.constantFrom(...'ab c.!?。！？\n3.14 e.g. Dr. 中文 https://x.io/p.q "”'.split(''), 'e.g. ', 'Dr. ', '3.14', 'https://a.io/b.c ', '。', '\n');
  const text = fc.array(alphabet, { maxLength: 60 }).map((parts) => parts.join(''));

  it('joins back to the text exactly, whatever the cuts', () => {
    fc.assert(
      fc.property(text, fc.array(fc.nat({ max: 80 }), { maxLength: 10 }), (value, cuts) => {
        expect(streamed(value, cuts).join('')).toBe(value);
      }),
      { numRuns: 1000 },
    );
  });

  it('looks back past the parts it has set aside: one character at a time, long words, abbreviations', () => {
    const long = 'x'.repeat(150);
    const texts = [`${long} Dr. Who came. ${long}e.g. then. Mr. ${long}. End.`, `${long}\n${long}。${long}`, `See e.g. ${long} and i.e. ${long}.`];
    for (const value of texts) {
      const cuts = Array.from({ length: value.length }, (_, index) => index);
      expect(streamed(value, cuts)).toEqual(splitSentences(value));
      expect(streamed(value, cuts).join('')).toBe(value);
    }
    expect(splitSentences(`${long} Dr. Who came. Then.`)).toEqual([`${long} Dr. Who came. `, 'Then.']);
  });

  it('gives the same sentences streamed as whole', () => {
    fc.assert(
      fc.property(text, fc.array(fc.nat({ max: 80 }), { maxLength: 10 }), (value, cuts) => {
        expect(streamed(value, cuts)).toEqual(splitSentences(value));
      }),
      { numRuns: 2000 },
    );
  });

  it('never ends a sentence inside a word, a number or a URL, nor after an abbreviation (but at a line break)', () => {
    fc.assert(
      fc.property(text, (value) => {
        const sentences = splitSentences(value);
        for (const [index, sentence] of sentences.slice(0, -1).entries()) {
          // Latin ends take the space after them; only Chinese ends and closers end without one.
          const last = sentence.at(-1)!;
          if (!/\s/.test(last)) expect(`。！？；…｡"'”’)]}」』）】》`).toContain(last);
          if (!sentence.endsWith('\n')) expect(sentence).not.toMatch(/(^|\s)(e\.g\.|Dr\.)\s*$/);
          expect(sentences[index + 1]).not.toBe('');
        }
      }),
      { numRuns: 1000 },
    );
  });
});
