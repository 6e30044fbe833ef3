/**
 * `parsedOnce` (src/session/store/history-cache.ts): a stored message's JSON made once for the
 * isolate, frozen, the same object at every later read of the same text, within a bound of about a
 * million characters, the least recently read forgotten first.
 */
import { describe, expect, it } from 'vitest';
import type { HistoryMessage } from '../../src/api/content';
import { PARSED_CHARS, parsedOnce } from '../../src/session/store/history-cache';

/** A parse that counts its calls: the message is the text, as a user's. */
function counting() {
  const parse = (text: string): HistoryMessage => {
    parse.calls++;
    return { role: 'user', content: [{ type: 'text', text }] };
  };
  parse.calls = 0;
  return parse;
}

describe('parsedOnce', () => {
  it('makes a text’s message once, deeply frozen: every later read of the text gets that object', () => {
    const parse = counting();
    const first = parsedOnce('once: a', parse);
    expect(parsedOnce('once: a', parse)).toBe(first);
    expect(parse.calls).toBe(1);
    expect(first).toEqual({ role: 'user', content: [{ type: 'text', text: 'once: a' }] });
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen((first.content as unknown[])[0])).toBe(true);
    // Another text is another message, even where its message would be equal.
    expect(parsedOnce('once: b', parse)).not.toBe(first);
    expect(parse.calls).toBe(2);
  });

  it('keeps nothing of a parse that throws: the next read parses again', () => {
    let calls = 0;
    const failing = (): HistoryMessage => {
      calls++;
      throw new Error('not a message');
    };
    expect(() => parsedOnce('fails', failing)).toThrow('not a message');
    expect(() => parsedOnce('fails', failing)).toThrow('not a message');
    expect(calls).toBe(2);
  });

  it('parses a text longer than a sixteenth of its bound at every read', () => {
    const parse = counting();
    const long = 'l'.repeat(PARSED_CHARS / 16 + 1);
    const first = parsedOnce(long, parse);
    expect(Object.isFrozen(first)).toBe(true);
    expect(parsedOnce(long, parse)).not.toBe(first);
    expect(parse.calls).toBe(2);
  });

  it('forgets the least recently read text first once its bound is reached', () => {
    const parse = counting();
    // Twenty texts of a twentieth of the bound fill it (and push out whatever was kept before).
    const texts = Array.from({ length: 21 }, (_, index) => `${String(index).padStart(2, '0')}`.padEnd(PARSED_CHARS / 20, '.'));
    const made = texts.slice(0, 20).map((text) => parsedOnce(text, parse));
    expect(parse.calls).toBe(20);
    expect(texts.slice(0, 20).map((text) => parsedOnce(text, parse))).toEqual(made);
    expect(parse.calls).toBe(20);
    // The first read again is the newest: a twenty-first text pushes out the second, not the first.
    parsedOnce(texts[0]!, parse);
    parsedOnce(texts[20]!, parse);
    expect(parse.calls).toBe(21);
    expect(parsedOnce(texts[0]!, parse)).toBe(made[0]);
    expect(parse.calls).toBe(21);
    expect(parsedOnce(texts[1]!, parse)).not.toBe(made[1]);
    expect(parse.calls).toBe(22);
  });
});
