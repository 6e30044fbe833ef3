/**
 * What a turn reads of its whole history at every model call, made cheap for a long agent session
 * without changing what it gives: the prompt's estimate (`estimateTokens`: a frozen message's blocks
 * counted once, since they never change) and the tool call ids a model may not give again
 * (`usedToolCallIds`, from the session's kept ids where it has them).
 */
import { describe, expect, it } from 'vitest';
import type { HistoryMessage } from '../../src/api/content';
import { estimateTokens, estimateMessageTokens } from '../../src/agent/context/token-estimate';
import { usedToolCallIds } from '../../src/agent/history';
import { deepFreeze } from '../../src/session/store/history-cache';

const history = (): HistoryMessage[] => [
  { role: 'user', content: 'what time is it in Paris and in Tokyo?' },
  {
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'Two zones.', signature: 'sig-0123456789' },
      { type: 'text', text: 'Let me look.' },
      { type: 'tool_use', toolCallId: 'call_a', name: 'current_time', input: { timezone: 'Europe/Paris' } },
      { type: 'tool_use', toolCallId: 'call_b', name: 'current_time', input: { timezone: 'Asia/Tokyo' } },
    ],
  },
  { role: 'tool', toolCallId: 'call_a', content: '2026-12-04T11:00:00.000+01:00' },
  { role: 'tool', toolCallId: 'call_b', content: [{ type: 'text', text: '2026-12-04T19:00:00.000+09:00' }] },
  { role: 'assistant', content: 'It is 11:00 in Paris and 19:00 in Tokyo.' },
  { role: 'user', content: [{ type: 'text', text: 'and now?' }, { type: 'image', url: 'https://example.com/clock.png' }] },
];

describe('the estimate of a history', () => {
  it('is the same for frozen messages as for the same messages unfrozen, at every estimate', () => {
    const frozen = history().map(deepFreeze);
    const plain = history();
    const expected = estimateTokens('system', plain, []);
    expect(estimateTokens('system', frozen, [])).toBe(expected);
    expect(estimateTokens('system', frozen, [])).toBe(expected);
    expect(frozen.map(estimateMessageTokens)).toEqual(plain.map(estimateMessageTokens));
  });

  it('counts a message that is not frozen as it is now', () => {
    const messages = history();
    const before = estimateTokens('', messages, []);
    const assistant = messages[1]! as { content: { type: string; text?: string }[] };
    assistant.content[1]!.text = 'Let me look that up for you, in both zones, with the tool.';
    expect(estimateTokens('', messages, [])).toBeGreaterThan(before);
  });
});

describe('the tool call ids a turn may not give again', () => {
  it('are the history’s calls, those added since, and those the session knows elsewhere', () => {
    const ids = usedToolCallIds(history().map(deepFreeze), (id) => id === 'call_old');
    expect(ids.has('call_a')).toBe(true);
    expect(ids.has('call_b')).toBe(true);
    expect(ids.has('call_old')).toBe(true);
    expect(ids.has('call_c')).toBe(false);
    ids.add('call_c');
    expect(ids.has('call_c')).toBe(true);
    // A tool result's id is not a call the history made.
    expect(usedToolCallIds([{ role: 'tool', toolCallId: 'call_x', content: 'ok' }]).has('call_x')).toBe(false);
  });

  it('are taken as the session keeps them where it does, the history then not scanned; the turn’s own are its own', () => {
    const kept = new Set(['call_kept']);
    let asked = 0;
    const ids = usedToolCallIds(history(), undefined, () => (asked++, kept));
    expect(asked).toBe(0); // asked for when the model first names a call, not before
    expect(ids.has('call_kept')).toBe(true);
    expect(ids.has('call_a')).toBe(false);
    ids.add('call_new');
    expect(ids.has('call_new')).toBe(true);
    expect(kept.has('call_new')).toBe(false);
    expect(asked).toBe(1);
    // Where the session keeps none (dropped by a rollback), the history is scanned.
    expect(usedToolCallIds(history(), undefined, () => undefined).has('call_a')).toBe(true);
  });
});
