/**
 * The demo model counts its input as a server counts what it is sent, about four characters a token
 * of the prompt's JSON (src/providers/demo/demo-provider.ts), with each message's JSON written once:
 * the count is the same as the whole prompt's, on every call and whatever the messages hold.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { HistoryMessage } from '../../src/api/content';
import { createDemoProvider } from '../../src/providers/demo/demo-provider';
import type { ModelRequest } from '../../src/providers/types';
import { historyMessage } from '../helpers/history-arbitrary';

async function inputTokens(messages: HistoryMessage[]): Promise<number | undefined> {
  const request = { model: 'demo', system: 'sys', messages: [...messages, { role: 'user', content: 'hello' }], tools: [], signal: new AbortController().signal } as ModelRequest;
  for await (const batch of createDemoProvider().stream(request)) for (const part of batch) if (part.type === 'usage') return part.usage.inputTokens;
  return undefined;
}

describe('the demo model’s input count', () => {
  it('is the whole prompt’s JSON, call after call, lone surrogates and all', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(historyMessage(fc.string({ unit: 'binary', maxLength: 12 }), fc.string({ minLength: 1, maxLength: 12 })), { maxLength: 6 }), async (messages) => {
        const expected = Math.ceil(('sys'.length + JSON.stringify([...messages, { role: 'user', content: 'hello' }]).length) / 4);
        expect(await inputTokens(messages)).toBe(expected);
        expect(await inputTokens(messages)).toBe(expected);
      }),
      { numRuns: 200 },
    );
  });
});
