/**
 * Which linked images a refused call leaves out when it is sent again (src/agent/earlier-image-urls.ts):
 * those of messages before the last user message, in user messages and tool results alike; never an
 * inline image, never one from the last user message on.
 */
import { describe, expect, it } from 'vitest';
import type { HistoryMessage } from '../../src/api/content';
import { withoutEarlierImageUrls } from '../../src/agent/earlier-image-urls';

const link = (name: string) => ({ type: 'image' as const, url: `https://images.example/${name}.png` });
const inline = { type: 'image' as const, mimeType: 'image/png', data: 'AAAA' };
const said = (name: string) => ({ type: 'text', text: `[An image linked earlier (https://images.example/${name}.png) is no longer sent: the model's server could not use its URL.]` });

describe('withoutEarlierImageUrls', () => {
  it('replaces the links of earlier user messages and tool results, and keeps the rest', () => {
    const messages: HistoryMessage[] = [
      { role: 'user', content: [{ type: 'text', text: 'look' }, link('a'), inline] },
      { role: 'assistant', content: [{ type: 'tool_use', toolCallId: 'call_1', name: 'shot', input: {} }] },
      { role: 'tool', toolCallId: 'call_1', content: [link('b')] },
      { role: 'assistant', content: 'Seen.' },
      { role: 'user', content: [link('c')] },
      { role: 'assistant', content: [{ type: 'tool_use', toolCallId: 'call_2', name: 'shot', input: {} }] },
      { role: 'tool', toolCallId: 'call_2', content: [link('d')] },
    ];
    expect(withoutEarlierImageUrls(messages)).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'look' }, said('a'), inline] },
      messages[1],
      { role: 'tool', toolCallId: 'call_1', content: [said('b')] },
      ...messages.slice(3),
    ]);
  });

  it('gives undefined when there is no earlier link: nothing to send differently', () => {
    expect(withoutEarlierImageUrls([{ role: 'user', content: [link('a')] }])).toBeUndefined();
    expect(withoutEarlierImageUrls([{ role: 'user', content: [inline] }, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'and?' }])).toBeUndefined();
  });
});
