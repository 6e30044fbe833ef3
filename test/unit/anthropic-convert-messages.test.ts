/**
 * The history in the shape of the Messages API, converted once per message (src/providers/anthropic/
 * convert-messages.ts): what a call marks or trims at the conversation's end is a copy, so the next
 * call, whose end is elsewhere, sends those blocks as they were; and the body's JSON, each block
 * written once, reads back as the body.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { historyMessage } from '../helpers/history-arbitrary';
import type { HistoryMessage } from '../../src/api/content';
import { wellFormedJson, wellFormedJsonWithItems } from '../../src/lib/well-formed-json';
import { convertMessages, messageJson } from '../../src/providers/anthropic/convert-messages';

describe('convertMessages, once per message', () => {
  it('marks and trims the end on copies: the next call sends those blocks unmarked and whole', () => {
    const question: HistoryMessage = { role: 'user', content: 'Weather?' };
    const paused: HistoryMessage = { role: 'assistant', content: 'It is  ' };
    const first = convertMessages([question, paused]);
    expect(first.at(-1)!.content).toEqual([{ type: 'text', text: 'It is', cache_control: { type: 'ephemeral' } }]);
    const next = convertMessages([question, paused, { role: 'user', content: 'Go on.' }]);
    expect(next).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'It is  ' }] },
      { role: 'user', content: [{ type: 'text', text: 'Go on.', cache_control: { type: 'ephemeral' } }] },
    ]);
    expect(next[0]!.content[0]).toBe(first[0]!.content[0]);
  });

  it('converts a history, however often, as it converts a fresh copy of it, and writes it as JSON.stringify does', () => {
    const message = historyMessage(fc.string({ unit: 'binary', maxLength: 6 }), fc.string({ minLength: 1, maxLength: 12 }));
    fc.assert(
      fc.property(fc.array(message, { maxLength: 8 }), fc.integer({ min: 1, max: 3 }), (messages, times) => {
        for (let call = 0; call < times; call++) {
          // Each call on a longer prefix, as a session's turns are.
          const prefix = messages.slice(0, messages.length - times + call + 1);
          const converted = convertMessages(prefix);
          expect(converted).toEqual(convertMessages(structuredClone(prefix)));
          const body = { model: 'm', messages: converted, stream: true };
          expect(JSON.parse(wellFormedJsonWithItems(body, 'messages', messageJson))).toEqual(JSON.parse(wellFormedJson(body)));
        }
      }),
      { numRuns: 300 },
    );
  });
});
