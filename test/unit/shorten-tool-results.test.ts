/**
 * Long tool results go to the model shortened (src/agent/context/shorten-tool-results.ts); every other
 * message goes as the same object, so that a provider converts and writes it once for its life.
 */
import { describe, expect, it } from 'vitest';
import type { HistoryMessage } from '../../src/api/content';
import { shortenToolResults } from '../../src/agent/context/shorten-tool-results';

describe('shortenToolResults', () => {
  it('hands on every message it leaves whole as the same object, and copies only what it shortens', () => {
    const long = 'x'.repeat(100);
    const messages: HistoryMessage[] = [
      { role: 'user', content: 'hi' },
      { role: 'tool', toolCallId: 'a', content: 'short' },
      { role: 'tool', toolCallId: 'b', content: [{ type: 'text', text: 'short too' }] },
      { role: 'tool', toolCallId: 'c', content: long },
      { role: 'tool', toolCallId: 'd', content: [{ type: 'text', text: 'fine' }, { type: 'text', text: long }] },
    ];
    const prompt = shortenToolResults(messages, 40);
    prompt.slice(0, 3).forEach((message, index) => expect(message).toBe(messages[index]));
    expect(prompt[3]).not.toBe(messages[3]);
    expect(prompt[3]!.content).toMatch(/^x{20}\n\[… 60 characters of this tool result were cut here; it is stored whole …\]\nx{20}$/);
    expect(messages[3]!.content).toBe(long);
    const blocks = (prompt[4] as Extract<HistoryMessage, { role: 'tool' }>).content as { text: string }[];
    expect(blocks[0]!.text).toBe('fine');
    expect(blocks[1]!.text).toContain('60 characters');
    expect((messages[4] as Extract<HistoryMessage, { role: 'tool' }>).content).toEqual([{ type: 'text', text: 'fine' }, { type: 'text', text: long }]);
  });
});
