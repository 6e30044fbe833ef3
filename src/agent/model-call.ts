/**
 * One model call: drive the provider's stream, turn its parts into blocks with stable ids
 * (`block-assembler.ts`, emitting block start/delta/end as they happen), and return the assembled
 * assistant content, or the error that ended the call. Open blocks are always closed before this
 * returns. A failure before any output is sent again when it may pass (`retry-policy.ts`), and a
 * refusal once more without the images and the thinking of earlier messages (`earlier-parts.ts`).
 */
import type { AssistantBlock } from '../api/content';
import type { ModelHandle, ModelRequest, ModelStreamPart, ToolSpec } from '../providers/types';
import type { Emit, FinishReason, ToolExecution, TurnError } from './events';
import { emptyUsage, type Usage } from './usage';
import type { HistoryMessage } from '../api/content';
import { BlockAssembler, type AssembledToolCall, type ToolCallIds } from './block-assembler';
import { summarizedCount } from './context/compaction';
import { sleep } from '../lib/sleep';
import { withoutEarlierParts } from './earlier-parts';
import { retryDelay, type RetryPolicy } from './retry-policy';

export type ModelCallResult =
  | { ok: true; blocks: AssistantBlock[]; toolCalls: AssembledToolCall[]; finishReason: FinishReason; usage: Usage }
  /** `partialText`: the text blocks the call had streamed before it ended (kept when it is cancelled). */
  | { ok: false; error: TurnError; usage: Usage; partialText: AssistantBlock[]; window?: number };

export type ModelCallOptions = {
  handle: ModelHandle;
  system: string;
  messages: HistoryMessage[];
  tools: ToolSpec[];
  /** `none`: the tools go for the history's sake; the model may not call them (`ModelRequest`). */
  toolChoice?: 'none';
  signal: AbortSignal;
  emit: Emit;
  newId: (prefix: string) => string;
  now: () => number;
  step: number;
  /**
   * Tool call ids already in the conversation. Some servers reuse ids (`call_0` in every response);
   * a reused id would pair a result with the wrong call, so it is replaced by a fresh one.
   */
  usedToolCallIds: ToolCallIds;
  retry: RetryPolicy;
  /**
   * Set once a call of the turn was refused with images or thinking of earlier messages and sent
   * again without them (`earlier-parts.ts`): the turn's later calls leave them out at once.
   */
  earlierParts?: { dropped: boolean };
  estimatedInputTokens: number;
  /** How a call of a tool (by name) would be carried out. */
  executionOf: (name: string) => ToolExecution;
  /** Sampling asked for by the caller, passed to the provider as it is. */
  sampling?: { temperature?: number; maxTokens?: number };
  /** The call's request, sent already (`sendCall`): its answer is read as the first attempt's. */
  sent?: SentCall;
};

/** A call whose request was sent before the loop told anything of it: its answer's parts, from the first. */
export type SentCall = { request: ModelRequest; parts: AsyncIterable<ModelStreamPart[]>; close(): void };

/** The request a call of `options` sends. */
function answerRequest(options: ModelCallOptions): ModelRequest {
  const summarized = summarizedCount(options.messages[0]);
  return {
    model: options.handle.model,
    purpose: 'answer',
    system: options.system,
    messages: (options.earlierParts?.dropped && withoutEarlierParts(options.messages)) || options.messages,
    tools: options.tools,
    ...(options.toolChoice ? { toolChoice: options.toolChoice } : {}),
    signal: options.signal,
    ...(summarized !== undefined ? { summarizedMessages: summarized } : {}),
    ...options.sampling,
  };
}

/**
 * Sends a call's request now, before `callModel` tells anything of it: the provider makes its
 * request in this task, so that writes its caller makes in a later one do not hold it (a Durable
 * Object sends nothing while a write of its own is unconfirmed). Its answer is read by `callModel`
 * (`sent`); `close` lets it go when the call is never made.
 */
export function sendCall(options: ModelCallOptions): SentCall {
  const request = answerRequest(options);
  const iterator = options.handle.provider.stream(request)[Symbol.asyncIterator]();
  // Started here: the provider's generator runs up to its request. Providers yield their failures as parts.
  let first: Promise<IteratorResult<ModelStreamPart[]>> | undefined = iterator.next();
  first.catch(() => {});
  const parts: AsyncIterable<ModelStreamPart[]> = {
    [Symbol.asyncIterator]: () => ({
      next: () => {
        const next = first ?? iterator.next();
        first = undefined;
        return next;
      },
      return: async () => (await iterator.return?.(undefined)) ?? { done: true, value: undefined },
    }),
  };
  return { request, parts, close: () => void iterator.return?.(undefined)?.catch(() => {}) };
}

export async function callModel(options: ModelCallOptions): Promise<ModelCallResult> {
  const { handle, emit, newId } = options;
  const callId = newId('call');
  const startedAt = options.now();
  emit({
    type: 'model-call-start',
    callId,
    step: options.step,
    model: handle.id,
    toolsOffered: options.tools.length > 0 && options.toolChoice !== 'none',
    estimatedInputTokens: options.estimatedInputTokens,
    at: startedAt,
  });

  const assembler = new BlockAssembler(callId, emit, newId, options.usedToolCallIds, options.executionOf);
  const earlier = options.earlierParts;
  let request: ModelRequest = options.sent?.request ?? answerRequest(options);
  let finishReason: FinishReason | undefined;
  let error: TurnError | undefined;
  // The context window an overflow named, where it named one.
  let window: number | undefined;
  let usage = emptyUsage();

  for (let attempt = 0; ; attempt++) {
    let output = false;
    let failure: Extract<ModelStreamPart, { type: 'error' }> | undefined;
    try {
      reading: for await (const parts of attempt === 0 && options.sent ? options.sent.parts : handle.provider.stream(request)) {
        for (const part of parts) {
          if (part.type === 'error') {
            failure = part;
            break reading;
          }
          if (part.type === 'finish') finishReason = part.reason;
          else if (part.type === 'usage') usage = { ...usage, ...part.usage };
          else {
            output = true;
            assembler.push(part);
          }
        }
      }
    } catch (cause) {
      // Providers promise not to throw; a bug that does still ends the call as an error, not a crash.
      failure = { type: 'error', code: 'internal_error', message: cause instanceof Error ? cause.message : String(cause) };
    }
    if (!failure) break;
    error = { code: failure.code, message: failure.message };
    window = failure.window;
    // Refused as made: once more without the images and the thinking of earlier messages, one of
    // which may be what the server refuses (earlier-parts.ts). Nothing of this call reached the client.
    const withoutEarlier = failure.refused && !output && !options.signal.aborted ? withoutEarlierParts(request.messages) : undefined;
    // Otherwise sent again only while nothing of this call reached the client, when it may pass.
    const delayMs = withoutEarlier ? 0 : !output && failure.retryable && !options.signal.aborted ? retryDelay(options.retry, attempt, failure.retryAfterMs) : undefined;
    if (delayMs === undefined) break;
    if (withoutEarlier) {
      request = { ...request, messages: withoutEarlier };
      if (earlier) earlier.dropped = true;
    }
    emit({ type: 'model-call-retry', callId, attempt: attempt + 1, delayMs, error });
    await sleep(delayMs, options.signal);
    error = undefined;
    window = undefined;
    usage = emptyUsage();
  }
  if (options.signal.aborted) error = { code: 'cancelled', message: 'The turn was cancelled.' };
  else if (!error && !finishReason) error = { code: 'upstream_cut', message: 'The model stream ended before it finished.' };

  const incomplete = error !== undefined;
  assembler.closeAll(incomplete);
  const durationMs = options.now() - startedAt;
  if (error) {
    emit({ type: 'model-call-end', callId, usage, durationMs, error });
    const partialText = assembler.blocks([]).filter((block) => block.type === 'text' && block.text !== '');
    return { ok: false, error, usage, partialText, ...(window ? { window } : {}) };
  }
  const reason = finishReason as FinishReason;
  emit({ type: 'model-call-end', callId, usage, durationMs, finishReason: reason });
  const toolCalls = assembler.toolCalls();
  return { ok: true, blocks: assembler.blocks(toolCalls), toolCalls, finishReason: reason, usage };
}

