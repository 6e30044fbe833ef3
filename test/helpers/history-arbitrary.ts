/** Histories for property tests of the providers' conversions: every role, text, images and tool calls, of the given strings. */
import fc from 'fast-check';
import type { HistoryMessage } from '../../src/api/content';

export function historyMessage(text: fc.Arbitrary<string>, id: fc.Arbitrary<string>): fc.Arbitrary<HistoryMessage> {
  return fc.oneof(
    fc.record({ role: fc.constant('user' as const), content: text }),
    fc.record({
      role: fc.constant('user' as const),
      content: fc.array(fc.oneof(fc.record({ type: fc.constant('text' as const), text }), fc.constant({ type: 'image' as const, url: 'https://example.com/a.png' })), { minLength: 1, maxLength: 3 }),
    }),
    fc.record({ role: fc.constant('system' as const), content: text }),
    fc.record({ role: fc.constant('assistant' as const), content: text }),
    fc.record({
      role: fc.constant('assistant' as const),
      content: fc.array(fc.oneof(fc.record({ type: fc.constant('text' as const), text }), fc.record({ type: fc.constant('tool_use' as const), toolCallId: id, name: text, input: fc.dictionary(text, text) })), { maxLength: 3 }),
    }),
    fc.record({ role: fc.constant('tool' as const), toolCallId: id, content: text, isError: fc.boolean() }),
  );
}
