/**
 * What compaction summarises: where it cuts (`chooseCut`: the latest exchanges that fit the budget,
 * never an earlier one that would pass it), and the transcript the summary is made from
 * (`transcript`: whole when it fits its budget; otherwise its longest lines shortened to their
 * beginning and end, each short line whole, the whole within budget).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { HistoryMessage } from '../../src/api/content';
import { chooseCut, transcript } from '../../src/agent/context/compaction';
import { estimateMessageTokens } from '../../src/agent/context/token-estimate';

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

describe('chooseCut', () => {
  const turn = (text: string): HistoryMessage[] => [
    { role: 'user', content: text },
    { role: 'assistant', content: 'ok' },
  ];

  it('keeps the latest exchanges that fit, and summarises one that would pass the budget', () => {
    const pasted = 'x'.repeat(20_000); // 5,000 tokens
    const messages = [...turn('first'), ...turn(pasted), ...turn('and now?')];
    // Keeping the pasted exchange would pass 1,000 tokens: the cut falls after it.
    expect(chooseCut(messages, 1000)).toBe(4);
  });

  it('keeps the latest user message and what follows it, whatever they weigh', () => {
    expect(chooseCut([...turn('first'), ...turn('y'.repeat(20_000))], 1000)).toBe(2);
  });

  it('keeps about the budget, never past it where an earlier cut would do', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 4000 }), { minLength: 2, maxLength: 30 }), fc.integer({ min: 100, max: 5000 }), (sizes, keep) => {
        const messages = sizes.flatMap((size) => turn('z'.repeat(size)));
        const cut = chooseCut(messages, keep);
        const last = messages.length - 2;
        expect(cut).toBeGreaterThan(0);
        expect(messages[cut]!.role).toBe('user');
        const kept = messages.slice(cut).reduce((sum, message) => sum + estimateMessageTokens(message), 0);
        // Past the budget only when the latest exchange alone is.
        if (cut < last) expect(kept).toBeLessThanOrEqual(keep);
      }),
    );
  });
});
