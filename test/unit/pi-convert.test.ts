/** Our stop reasons, usage and provider names in pi's words (docs/pi-and-agui.md). */
import { describe, expect, it } from 'vitest';
import { ourProviderOf, piModelOf, piStopReason, toPiUsage } from '../../src/protocol/pi-convert';

describe('pi conversions', () => {
  it('maps every finish to pi’s stop reason', () => {
    expect(piStopReason('end_turn')).toBe('stop');
    expect(piStopReason('tool_use')).toBe('toolUse');
    expect(piStopReason('max_tokens')).toBe('length');
    expect(piStopReason('cancelled')).toBe('aborted');
    expect(piStopReason('refusal')).toBe('error');
    expect(piStopReason('paused')).toBe('stop');
  });

  it('names providers and APIs as pi does, both ways', () => {
    expect(piModelOf('workers-ai:@cf/meta/llama-3.1-8b-instruct')).toEqual({ provider: 'cloudflare-workers-ai', api: 'openai-completions', model: '@cf/meta/llama-3.1-8b-instruct' });
    expect(piModelOf('openai:gpt-4o')).toEqual({ provider: 'openai', api: 'openai-completions', model: 'gpt-4o' });
    expect(piModelOf('anthropic:claude-sonnet-4-5')).toEqual({ provider: 'anthropic', api: 'anthropic-messages', model: 'claude-sonnet-4-5' });
    expect(ourProviderOf('cloudflare-workers-ai')).toBe('workers-ai');
    expect(ourProviderOf('openai')).toBe('openai');
  });

  it('moves cache reads and writes out of the input count, with zero cost', () => {
    expect(toPiUsage({ inputTokens: 100, outputTokens: 7, cachedInputTokens: 60, cacheWriteInputTokens: 10, reasoningTokens: 3 })).toEqual({
      input: 30,
      output: 7,
      cacheRead: 60,
      cacheWrite: 10,
      totalTokens: 107,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    });
  });
});
