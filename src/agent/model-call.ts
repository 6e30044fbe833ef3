/**
 * One model call: drive the provider's stream, turn its parts into blocks with stable ids (emitting
 * block start/delta/end as they happen), and return the assembled assistant content, or the error
 * that ended the call. Open blocks are always closed before this returns.
 */
import type { AssistantBlock } from '../api/content';
import type { ModelHandle, ModelRequest, ModelStreamPart, ToolSpec } from '../providers/types';
import type { Emit, FinishReason, ToolExecution, TurnError } from './events';
import { emptyUsage, type Usage } from './usage';
import type { HistoryMessage } from '../api/content';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../lib/json-depth';
import { summarizedCount } from './context/compaction';
import { sleep } from '../lib/sleep';
import { retryDelay, type RetryPolicy } from './retry-policy';

/** The tool call ids a conversation has used (a Set will do). */
export type ToolCallIds = { has(id: string): boolean; add(id: string): unknown };

export type AssembledToolCall = {
  toolCallId: string;
  name: string;
  input: Record<string, unknown>;
  /** Set when the model's arguments were not a JSON object: the raw text, for the error result. */
  invalidArguments?: string;
  /** Why they are invalid, when it is not that they are no JSON object. */
  invalidReason?: string;
};

export type ModelCallResult =
  | { ok: true; blocks: AssistantBlock[]; toolCalls: AssembledToolCall[]; finishReason: FinishReason; usage: Usage }
  /** `partialText`: the text blocks the call had streamed before it ended (kept when it is cancelled). */
  | { ok: false; error: TurnError; usage: Usage; partialText: AssistantBlock[] };

type OpenBlock =
  | { kind: 'text' | 'thinking'; blockId: string; contentIndex: number; text: string; signature?: string; redacted?: true }
  | { kind: 'tool'; blockId: string; contentIndex: number; index: number; toolCallId: string; name: string; args: string };

export type ModelCallOptions = {
  handle: ModelHandle;
  system: string;
  messages: HistoryMessage[];
  tools: ToolSpec[];
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
  estimatedInputTokens: number;
  /** How a call of a tool (by name) would be carried out. */
  executionOf: (name: string) => ToolExecution;
  /** Sampling asked for by the caller, passed to the provider as it is. */
  sampling?: { temperature?: number; maxTokens?: number };
};

export async function callModel(options: ModelCallOptions): Promise<ModelCallResult> {
  const { handle, emit, newId } = options;
  const callId = newId('call');
  const startedAt = options.now();
  emit({
    type: 'model-call-start',
    callId,
    step: options.step,
    model: handle.id,
    toolsOffered: options.tools.length > 0,
    estimatedInputTokens: options.estimatedInputTokens,
    at: startedAt,
  });

  const assembler = new BlockAssembler(callId, emit, newId, options.usedToolCallIds, options.executionOf);
  const summarized = summarizedCount(options.messages[0]);
  const request: ModelRequest = {
    model: handle.model,
    purpose: 'answer',
    system: options.system,
    messages: options.messages,
    tools: options.tools,
    signal: options.signal,
    ...(summarized !== undefined ? { summarizedMessages: summarized } : {}),
    ...options.sampling,
  };
  let finishReason: FinishReason | undefined;
  let error: TurnError | undefined;
  let usage = emptyUsage();

  for (let attempt = 0; ; attempt++) {
    let output = false;
    let failure: Extract<ModelStreamPart, { type: 'error' }> | undefined;
    try {
      reading: for await (const parts of handle.provider.stream(request)) {
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
    // Sent again only while nothing of this call reached the client.
    const delayMs = !output && failure.retryable && !options.signal.aborted ? retryDelay(options.retry, attempt, failure.retryAfterMs) : undefined;
    if (delayMs === undefined) break;
    emit({ type: 'model-call-retry', callId, attempt: attempt + 1, delayMs, error });
    await sleep(delayMs, options.signal);
    error = undefined;
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
    return { ok: false, error, usage, partialText };
  }
  const reason = finishReason as FinishReason;
  emit({ type: 'model-call-end', callId, usage, durationMs, finishReason: reason });
  const toolCalls = assembler.toolCalls();
  return { ok: true, blocks: assembler.blocks(toolCalls), toolCalls, finishReason: reason, usage };
}

class BlockAssembler {
  private readonly done: OpenBlock[] = [];
  private open: OpenBlock | undefined;
  private readonly toolsByIndex = new Map<number, Extract<OpenBlock, { kind: 'tool' }>>();

  constructor(
    private readonly callId: string,
    private readonly emit: Emit,
    private readonly newId: (prefix: string) => string,
    private readonly usedToolCallIds: ToolCallIds,
    private readonly executionOf: (name: string) => ToolExecution,
  ) {}

  push(part: Exclude<ModelStreamPart, { type: 'error' | 'finish' | 'usage' }>): void {
    switch (part.type) {
      case 'text-delta':
      case 'thinking-delta': {
        if (part.delta === '') return;
        const kind = part.type === 'text-delta' ? 'text' : 'thinking';
        const block = this.open?.kind === kind ? this.open : this.start(kind);
        if (block.kind === 'tool') return;
        block.text += part.delta;
        this.emit({ type: `${kind}-delta`, blockId: block.blockId, delta: part.delta });
        return;
      }
      case 'block-end':
        this.closeOpen(false);
        return;
      case 'redacted-thinking': {
        const block = this.start('thinking');
        if (block.kind === 'thinking') {
          block.signature = part.data;
          block.redacted = true;
        }
        this.closeOpen(false);
        return;
      }
      case 'thinking-signature': {
        const block = this.open?.kind === 'thinking' ? this.open : this.lastThinking() ?? this.start('thinking');
        if (block.kind === 'thinking') block.signature = (block.signature ?? '') + part.signature;
        return;
      }
      case 'tool-call-delta': {
        let block = this.toolsByIndex.get(part.index);
        if (!block) {
          this.closeOpen(false);
          const toolCallId = part.id && !this.usedToolCallIds.has(part.id) ? part.id : this.newId('call');
          this.usedToolCallIds.add(toolCallId);
          block = {
            kind: 'tool',
            blockId: this.newId('blk'),
            contentIndex: this.done.length,
            index: part.index,
            toolCallId,
            name: part.name ?? '',
            args: '',
          };
          this.toolsByIndex.set(part.index, block);
          this.open = block;
          this.emit({
            type: 'tool-input-start',
            callId: this.callId,
            blockId: block.blockId,
            contentIndex: block.contentIndex,
            toolCallId: block.toolCallId,
            name: block.name,
            execution: this.executionOf(block.name),
          });
        } else if (part.name && !block.name) {
          block.name = part.name;
        }
        if (part.argumentsDelta) {
          block.args += part.argumentsDelta;
          this.emit({ type: 'tool-input-delta', blockId: block.blockId, toolCallId: block.toolCallId, delta: part.argumentsDelta });
        }
        return;
      }
    }
  }

  closeAll(incomplete: boolean): void {
    this.closeOpen(incomplete);
  }

  /** Parsed at the end, so that a late fragment for an earlier call (interleaved indexes) still counts. */
  toolCalls(): AssembledToolCall[] {
    return this.done.flatMap((block) => (block.kind === 'tool' ? [parseToolArguments(block.toolCallId, block.name, block.args)] : []));
  }

  blocks(toolCalls: AssembledToolCall[]): AssistantBlock[] {
    return this.done.map((block): AssistantBlock => {
      if (block.kind !== 'tool') {
        if (block.kind === 'text') return { type: 'text', text: block.text };
        const thinking: AssistantBlock = { type: 'thinking', thinking: block.text };
        if (block.signature !== undefined) thinking.signature = block.signature;
        if (block.redacted) thinking.redacted = true;
        return thinking;
      }
      const call = toolCalls.find((c) => c.toolCallId === block.toolCallId);
      return { type: 'tool_use', toolCallId: block.toolCallId, name: block.name, input: call?.input ?? {} };
    });
  }

  private start(kind: 'text' | 'thinking'): OpenBlock {
    this.closeOpen(false);
    const block: OpenBlock = { kind, blockId: this.newId('blk'), contentIndex: this.done.length, text: '' };
    this.open = block;
    this.emit({ type: `${kind}-start`, callId: this.callId, blockId: block.blockId, contentIndex: block.contentIndex });
    return block;
  }

  private lastThinking(): OpenBlock | undefined {
    return this.done.findLast((block) => block.kind === 'thinking');
  }

  private closeOpen(incomplete: boolean): void {
    const block = this.open;
    if (!block) return;
    this.open = undefined;
    this.done.push(block);
    const mark = incomplete ? { incomplete: true as const } : {};
    if (block.kind !== 'tool') {
      if (block.kind === 'text') {
        this.emit({ type: 'text-end', blockId: block.blockId, text: block.text, ...mark });
      } else {
        const signature = block.signature === undefined ? {} : { signature: block.signature };
        const redacted = block.redacted ? { redacted: true as const } : {};
        this.emit({ type: 'thinking-end', blockId: block.blockId, thinking: block.text, ...signature, ...redacted, ...mark });
      }
    } else {
      const call = parseToolArguments(block.toolCallId, block.name, block.args);
      this.emit({
        type: 'tool-input-end',
        blockId: block.blockId,
        toolCallId: block.toolCallId,
        name: block.name,
        input: call.input,
        ...mark,
      });
    }
  }
}

function parseToolArguments(toolCallId: string, name: string, raw: string): AssembledToolCall {
  if (raw.trim() === '') return { toolCallId, name, input: {} };
  try {
    const value: unknown = JSON.parse(raw);
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      // Too deep to handle safely later (storage, encoders): as invalid as text that is not JSON.
      if (nestsDeeperThan(value)) {
        return { toolCallId, name, input: {}, invalidArguments: raw, invalidReason: `The arguments nest deeper than ${MAX_JSON_DEPTH} levels` };
      }
      return { toolCallId, name, input: value as Record<string, unknown> };
    }
  } catch {
    // Fall through: the model wrote something that is not JSON; it will see that as the tool's error.
  }
  return { toolCallId, name, input: {}, invalidArguments: raw };
}
