/**
 * Which images a refused call leaves out when it is sent again (src/agent/earlier-images.ts): those of
 * messages before the last user message, linked or inline, in user messages and tool results alike;
 * never one from the last user message on.
 */
import { describe, expect, it } from 'vitest';
import type { HistoryMessage } from '../../src/api/content';
import { withoutEarlierImages } from '../../src/agent/earlier-images';

const link = (name: string) => ({ type: 'image' as const, url: `https://images.example/${name}.png` });
const inline = { type: 'image' as const, mimeType: 'image/png', data: 'AAAA' };
const said = (which: string) => ({ type: 'text', text: `[An image shown earlier (${which}) is no longer sent: the model's server refused a request that held it.]` });

describe('withoutEarlierImages', () => {
  it('replaces the images of earlier user messages and tool results, and keeps the rest', () => {
    const messages: HistoryMessage[] = [
      { role: 'user', content: [{ type: 'text', text: 'look' }, link('a'), inline] },
      { role: 'assistant', content: [{ type: 'tool_use', toolCallId: 'call_1', name: 'shot', input: {} }] },
      { role: 'tool', toolCallId: 'call_1', content: [link('b')] },
      { role: 'assistant', content: 'Seen.' },
      { role: 'user', content: [link('c'), inline] },
      { role: 'assistant', content: [{ type: 'tool_use', toolCallId: 'call_2', name: 'shot', input: {} }] },
      { role: 'tool', toolCallId: 'call_2', content: [link('d')] },
    ];
    expect(withoutEarlierImages(messages)).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'look' }, said('https://images.example/a.png'), said('image/png')] },
      messages[1],
      { role: 'tool', toolCallId: 'call_1', content: [said('https://images.example/b.png')] },
      ...messages.slice(3),
    ]);
  });

  it('gives undefined when no earlier message has an image: nothing to send differently', () => {
    expect(withoutEarlierImages([{ role: 'user', content: [link('a'), inline] }])).toBeUndefined();
    expect(withoutEarlierImages([{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'ok' }, { role: 'user', content: [inline] }])).toBeUndefined();
  });
});
