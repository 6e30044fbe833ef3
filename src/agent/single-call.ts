/**
 * One model call outside any session and turn: pi's model gateway (`POST /api/stream`), where pi's
 * own loop runs the tools and keeps the history. The loop's model call, its events told through
 * `emit` like a turn's, so that the door is an encoder of the same event stream. Never rejects: a
 * bug that throws still ends the call with a `model-call-end` that carries the error.
 */
import type { HistoryMessage } from '../api/content';
import type { ModelHandle, ToolSpec } from '../providers/types';
import { emptyUsage } from '../providers/vocabulary';
import type { Emit } from './events';
import { callIdsOf } from './history';
import { callModel } from './model-call';
import type { RetryPolicy } from './retry-policy';

export type SingleCall = {
  model: ModelHandle;
  system: string;
  messages: HistoryMessage[];
  tools: ToolSpec[];
  signal: AbortSignal;
  retry: RetryPolicy;
  sampling?: { temperature?: number; maxTokens?: number };
  newId: (prefix: string) => string;
  now: () => number;
};

export async function runSingleCall(call: SingleCall, emit: Emit): Promise<void> {
  try {
    await callModel({
      handle: call.model,
      system: call.system,
      messages: call.messages,
      tools: call.tools,
      signal: call.signal,
      emit,
      newId: call.newId,
      now: call.now,
      step: 1,
      usedToolCallIds: callIdsOf(call.messages),
      retry: call.retry,
      estimatedInputTokens: 0,
      // The caller runs every tool it offers.
      executionOf: () => 'client',
      ...(call.sampling ? { sampling: call.sampling } : {}),
    });
  } catch (cause) {
    console.error('single model call failed', cause);
    emit({ type: 'model-call-end', callId: 'failed', usage: emptyUsage(), durationMs: 0, error: { code: 'internal_error', message: 'The server failed during the call.' } });
  }
}
