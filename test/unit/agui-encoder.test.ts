/** The AG-UI encoder's terminal event for each way a turn ends, and its usage per model. */
import { EventSchemas } from '@ag-ui/core/schemas';
import { describe, expect, it } from 'vitest';
import type { AgentEvent, TurnError } from '../../src/agent/events';
import { emptyUsage } from '../../src/agent/usage';
import { createAguiEncoder } from '../../src/protocol/agui-encoder';

const run = { threadId: 't', runId: 'r' };
const usage = (inputTokens: number, outputTokens: number) => ({ ...emptyUsage(), inputTokens, outputTokens });

function last(events: AgentEvent[]): any {
  const encoder = createAguiEncoder(run);
  const out = events.flatMap((event) => encoder.encode(event));
  for (const event of out) expect(EventSchemas.safeParse(event).success).toBe(true);
  return out.at(-1);
}

const start: AgentEvent = { type: 'turn-start', turnId: 'turn', model: 'demo:demo', at: 0 };
const stop = (stopReason: 'end_turn' | 'max_tokens' | 'error' | 'tool_use', error?: TurnError): AgentEvent => ({
  type: 'turn-stop',
  turnId: 'turn',
  stopReason,
  at: 0,
  usage: usage(15, 7),
  modelCalls: [
    { model: 'openai:gpt-4o', usage: usage(10, 5) },
    { model: 'anthropic:claude', usage: usage(3, 1) },
    { model: 'openai:gpt-4o', usage: usage(2, 1) },
  ],
  calibration: 1,
  ...(error ? { error } : {}),
});

describe('AG-UI encoder', () => {
  it('finishes a completed turn as success, with usage per model', () => {
    expect(last([start, stop('end_turn')])).toEqual({
      type: 'RUN_FINISHED',
      threadId: 't',
      runId: 'r',
      result: { turnId: 'turn', stopReason: 'end_turn' },
      outcome: { type: 'success' },
      usage: [
        { provider: 'openai', model: 'gpt-4o', inputTokens: 12, outputTokens: 6, totalTokens: 18, reasoningTokens: 0, cachedInputTokens: 0, cacheWriteInputTokens: 0 },
        { provider: 'anthropic', model: 'claude', inputTokens: 3, outputTokens: 1, totalTokens: 4, reasoningTokens: 0, cachedInputTokens: 0, cacheWriteInputTokens: 0 },
      ],
    });
  });

  it('tells the output limit in the result, a cancel as the cancelled outcome, a failure as RUN_ERROR', () => {
    expect(last([start, stop('max_tokens', { code: 'output_limit', message: 'cut' })])).toMatchObject({ outcome: { type: 'success' }, result: { stopReason: 'max_tokens' } });
    expect(last([start, stop('error', { code: 'cancelled', message: 'The turn was cancelled.' })])).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'cancelled' } });
    expect(last([start, stop('error', { code: 'upstream_error', message: 'It broke.' })])).toEqual({ type: 'RUN_ERROR', message: 'It broke.', code: 'upstream_error' });
  });

  it('interrupts for the calls that wait for permission only; client calls are pending in a success', () => {
    const suspend = (awaiting: ('client' | 'permission')[]): AgentEvent => ({
      type: 'turn-suspend',
      pending: awaiting.map((kind, index) => ({ toolCallId: `c${index}`, name: kind === 'client' ? 'where' : 'memory_save', input: {}, awaiting: kind })),
    });
    expect(last([start, suspend(['client', 'permission']), stop('tool_use')]).outcome.interrupts.map((i: any) => i.id)).toEqual(['c1']);
    expect(last([start, suspend(['client', 'client']), stop('tool_use')]).outcome).toEqual({ type: 'success', pendingToolCallIds: ['c0', 'c1'] });
  });
});
