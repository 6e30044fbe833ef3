/**
 * Feeds a recorded stream to a provider (as its fetch's response body) and runs one model call,
 * holding the provider to its contract (`src/providers/types.ts`) on the way: no empty batch, and an
 * error part only as the last part of the last batch.
 */
import { expect } from 'vitest';
import { callModel, type ModelCallResult } from '../../src/agent/model-call';
import type { AgentEvent } from '../../src/agent/events';
import { DEFAULT_RETRY_POLICY } from '../../src/agent/retry-policy';
import type { HistoryMessage } from '../../src/api/content';
import type { ModelProvider, ModelStreamPart } from '../../src/providers/types';

export function serve(body: string | ReadableStream<Uint8Array>, status = 200): typeof fetch {
  return async () => new Response(body, { status, headers: { 'content-type': 'text/event-stream' } });
}

export async function replayThrough(
  provider: ModelProvider,
  messages: HistoryMessage[] = [{ role: 'user', content: 'hi' }],
): Promise<{ result: ModelCallResult; events: AgentEvent[]; text: string; thinking: string }> {
  const events: AgentEvent[] = [];
  let ids = 0;
  const result = await callModel({
    handle: { id: 'test:model', model: 'model', provider: { stream: (request) => heldToContract(provider.stream(request)) } },
    system: 'sys',
    messages,
    tools: [],
    signal: new AbortController().signal,
    emit: (event) => events.push(event),
    newId: (prefix) => `${prefix}_${++ids}`,
    now: () => 0,
    step: 1,
    usedToolCallIds: new Set(),
    retry: { ...DEFAULT_RETRY_POLICY, maxRetries: 0 },
    estimatedInputTokens: 0,
    executionOf: () => 'unknown',
  });
  const text = events.flatMap((e) => (e.type === 'text-delta' ? [e.delta] : [])).join('');
  const thinking = events.flatMap((e) => (e.type === 'thinking-delta' ? [e.delta] : [])).join('');
  return { result, events, text, thinking };
}

async function* heldToContract(batches: AsyncIterable<ModelStreamPart[]>): AsyncGenerator<ModelStreamPart[]> {
  const source = batches[Symbol.asyncIterator]();
  for (let next = await source.next(); !next.done; next = await source.next()) {
    const batch = next.value;
    expect(batch.length, 'no empty batch').toBeGreaterThan(0);
    const at = batch.findIndex((part) => part.type === 'error');
    if (at !== -1) {
      expect(at, 'an error part is the last of its batch').toBe(batch.length - 1);
      // The loop stops reading at an error: the stream must have ended there already.
      expect((await source.next()).done, 'nothing after an error part').toBe(true);
      yield batch;
      return;
    }
    yield batch;
  }
}

/** Every block opened is closed, once, before the call ends. */
export function blocksBalanced(events: AgentEvent[]): boolean {
  const open = new Set<string>();
  for (const event of events) {
    if (event.type.endsWith('-start') && 'blockId' in event) open.add(event.blockId);
    if (event.type.endsWith('-delta') && 'blockId' in event && !open.has(event.blockId)) return false;
    if (event.type.endsWith('-end') && 'blockId' in event) {
      if (!open.has(event.blockId)) return false;
      open.delete(event.blockId);
    }
  }
  return open.size === 0 && events.at(-1)?.type === 'model-call-end';
}
