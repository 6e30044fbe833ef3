/**
 * The transcript a summary is made from (`transcript`): whole when it fits its budget; otherwise its
 * longest lines shortened to their beginning and end, each short line whole, the whole within budget.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { HistoryMessage } from '../../src/api/content';
import { transcript } from '../../src/agent/context/compaction';

describe('transcript', () => {
  it('is whole when it fits', () => {
    const messages: HistoryMessage[] = [
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 'hi' },
    ];
    expect(transcript(undefined, messages, 1000)).toBe('user: hello\nassistant: hi');
  });

  it('shortens a message longer than its budget to its beginning and end, and keeps the short ones whole', () => {
    const pasted = `BEGIN ${'x'.repeat(50_000)} END`;
    const text = transcript({ text: 'earlier', messages: 4 }, [{ role: 'user', content: pasted }, { role: 'assistant', content: 'noted' }], 4000);
    expect(text.length).toBeLessThanOrEqual(4000);
    expect(text).toMatch(/^Summary so far \(4 messages\):\nearlier\n/);
    expect(text).toMatch(/\nuser: BEGIN x+ \[… \d+ characters left out …\] x+ END\nassistant: noted$/);
  });

  it('stays within any budget of a few hundred characters a line, whatever the messages', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 3000 }), { minLength: 1, maxLength: 20 }), fc.integer({ min: 5000, max: 20_000 }), (texts, budget) => {
        const messages: HistoryMessage[] = texts.map((content) => ({ role: 'user', content }));
        const text = transcript(undefined, messages, budget);
        expect(text.length).toBeLessThanOrEqual(budget);
        // A message that fits a fair share of the budget is never shortened.
        for (const content of texts) if (content.length <= budget / texts.length / 2 && !content.includes('\n')) expect(text).toContain(`user: ${content}`);
      }),
    );
  });
});
