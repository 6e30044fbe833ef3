/**
 * What a refused call leaves out when it is sent again (src/agent/earlier-parts.ts): the images and
 * the thinking of messages before the last user message, linked or inline, in user messages and tool
 * results alike; never one from the last user message on.
 */
import { describe, expect, it } from 'vitest';
import type { HistoryMessage } from '../../src/api/content';
import { withoutEarlierParts } from '../../src/agent/earlier-parts';

const link = (name: string) => ({ type: 'image' as const, url: `https://images.example/${name}.png` });
const inline = { type: 'image' as const, mimeType: 'image/png', data: 'AAAA' };
const said = (which: string) => ({ type: 'text', text: `[An image shown earlier (${which}) is no longer sent: the model's server refused a request that held it.]` });
const thought = (signature: string) => ({ type: 'thinking' as const, thinking: 'Hmm.', signature });

describe('withoutEarlierParts', () => {
  it('replaces the images of earlier user messages and tool results, leaves out earlier thinking, and keeps the rest', () => {
    const messages: HistoryMessage[] = [
      { role: 'user', content: [{ type: 'text', text: 'look' }, link('a'), inline] },
      { role: 'assistant', content: [thought('sig-a'), { type: 'tool_use', toolCallId: 'call_1', name: 'shot', input: {} }] },
      { role: 'tool', toolCallId: 'call_1', content: [link('b')] },
      { role: 'assistant', content: [thought('sig-b'), { type: 'text', text: 'Seen.' }] },
      { role: 'user', content: [link('c'), inline] },
      { role: 'assistant', content: [thought('sig-c'), { type: 'tool_use', toolCallId: 'call_2', name: 'shot', input: {} }] },
      { role: 'tool', toolCallId: 'call_2', content: [link('d')] },
    ];
    expect(withoutEarlierParts(messages)).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'look' }, said('https://images.example/a.png'), said('image/png')] },
      { role: 'assistant', content: [{ type: 'tool_use', toolCallId: 'call_1', name: 'shot', input: {} }] },
      { role: 'tool', toolCallId: 'call_1', content: [said('https://images.example/b.png')] },
      { role: 'assistant', content: [{ type: 'text', text: 'Seen.' }] },
      // From the last user message on, as it was: the turn's own thinking goes with its calls.
      ...messages.slice(4),
    ]);
  });

  it('leaves earlier thinking out when there is no image, redacted thinking too', () => {
    const redacted = { type: 'thinking' as const, thinking: '', signature: 'opaque', redacted: true };
    const messages: HistoryMessage[] = [
      { role: 'user', content: 'think' },
      { role: 'assistant', content: [thought('sig-a'), redacted, { type: 'text', text: 'Done.' }] },
      { role: 'user', content: 'again' },
    ];
    expect(withoutEarlierParts(messages)).toEqual([messages[0], { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] }, messages[2]]);
  });

  it('leaves out the parts of the messages before a given one, as a later turn does from where a refusal began', () => {
    const messages: HistoryMessage[] = [
      { role: 'user', content: [link('a')] },
      { role: 'assistant', content: [thought('sig-a'), { type: 'text', text: 'A.' }] },
      { role: 'user', content: [link('b')] },
      { role: 'assistant', content: [thought('sig-b'), { type: 'text', text: 'B.' }] },
      { role: 'user', content: 'next' },
    ];
    expect(withoutEarlierParts(messages, 2)).toEqual([
      { role: 'user', content: [said('https://images.example/a.png')] },
      { role: 'assistant', content: [{ type: 'text', text: 'A.' }] },
      ...messages.slice(2),
    ]);
    expect(withoutEarlierParts(messages, 0)).toBeUndefined();
  });

  it('gives undefined when no earlier message has an image or thinking: nothing to send differently', () => {
    expect(withoutEarlierParts([{ role: 'user', content: [link('a'), inline] }])).toBeUndefined();
    expect(withoutEarlierParts([{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'ok' }, { role: 'user', content: [inline] }])).toBeUndefined();
    expect(withoutEarlierParts([{ role: 'user', content: 'hi' }, { role: 'assistant', content: [thought('sig')] }])).toBeUndefined();
  });
});
