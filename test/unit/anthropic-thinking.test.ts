/**
 * What each Anthropic model or compatible server takes, learnt from its refusal
 * (src/providers/anthropic/server-knowledge.ts): thinking with a budget where the model takes one,
 * adaptive thinking where it takes no budget (Claude Opus 4.7 and later), none where it does not
 * think (Claude 3.5 Haiku), in the API's own words; and no `tool_choice` for a compatible server that
 * refuses the `none` a turn's last call sends.
 */
import { describe, expect, it } from 'vitest';
import { createAnthropicProvider } from '../../src/providers/anthropic/anthropic-provider';
import textPing from '../fixtures/upstream/anthropic/claude-sonnet-4-text-ping.sse?raw';
import { replayThrough } from '../helpers/replay';

/** A Messages API that refuses the thinking a model does not take, in its words, and answers the rest with a recording. */
function thinkingServer(model: 'adaptive-only' | 'no-thinking') {
  const sent: any[] = [];
  const fetch = (async (_url: string, init: RequestInit) => {
    const body = JSON.parse(String(init.body));
    sent.push(body);
    const type = body.thinking?.type;
    const message =
      model === 'adaptive-only' && type === 'enabled'
        ? '"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.'
        : model === 'no-thinking' && type !== undefined
          ? `'${body.model}' does not support thinking.`
          : undefined;
    if (message) return new Response(JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message } }), { status: 400, headers: { 'content-type': 'application/json' } });
    return new Response(textPing, { headers: { 'content-type': 'text/event-stream' } });
  }) as typeof globalThis.fetch;
  const provider = createAnthropicProvider({ baseUrl: `http://${model}.test`, apiKey: 'k', maxTokens: 8192, thinkingBudget: 2048, timeouts: { connectMs: 1000, firstByteMs: 1000, idleMs: 1000 }, fetch });
  return { provider, sent };
}

describe('thinking as each model takes it', () => {
  it('asks a model that takes no budget for adaptive thinking, after its refusal and at once on the next call', async () => {
    const { provider, sent } = thinkingServer('adaptive-only');
    expect((await replayThrough(provider)).result.ok).toBe(true);
    expect((await replayThrough(provider)).result.ok).toBe(true);
    expect(sent.map((body) => body.thinking)).toEqual([{ type: 'enabled', budget_tokens: 2048 }, { type: 'adaptive' }, { type: 'adaptive' }]);
  });

  it('asks a model that does not think for no thinking, after its refusal and at once on the next call', async () => {
    const { provider, sent } = thinkingServer('no-thinking');
    expect((await replayThrough(provider)).result.ok).toBe(true);
    expect((await replayThrough(provider)).result.ok).toBe(true);
    expect(sent.map((body) => body.thinking ?? null)).toEqual([{ type: 'enabled', budget_tokens: 2048 }, null, null]);
  });

  it('leaves tool_choice out for a compatible server that refuses the none a turn’s last call sends', async () => {
    const sent: any[] = [];
    const fetch = (async (_url: string, init: RequestInit) => {
      const body = JSON.parse(String(init.body));
      sent.push(body);
      if (body.tool_choice) return new Response(JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: "tool_choice.type: Input should be 'auto', 'any' or 'tool'" } }), { status: 400 });
      return new Response(textPing, { headers: { 'content-type': 'text/event-stream' } });
    }) as typeof globalThis.fetch;
    const provider = createAnthropicProvider({ baseUrl: 'http://compatible.test', maxTokens: 1024, thinkingBudget: 0, timeouts: { connectMs: 1000, firstByteMs: 1000, idleMs: 1000 }, fetch });
    const tools = [{ name: 'calculator', description: 'Sums.', parameters: { type: 'object', properties: {} } }];
    const parts = [];
    for await (const batch of provider.stream({ model: 'm', system: 's', messages: [{ role: 'user', content: 'hi' }], tools, toolChoice: 'none', signal: new AbortController().signal })) parts.push(...batch);
    expect(parts.at(-1)).toMatchObject({ type: 'finish' });
    expect(sent.map((body) => body.tool_choice ?? null)).toEqual([{ type: 'none' }, null]);
    expect(sent[1].tools).toHaveLength(1);
  });
});
