/**
 * A model call's stream parts as blocks with stable ids: each text, thinking and tool-call block
 * opened, grown and closed as its parts come (emitting block start, delta and end as they happen),
 * then the assistant content they make and the tool calls, their arguments parsed. Tool call ids a
 * server reuses are replaced by fresh ones. Used by `model-call.ts`, one assembler per call.
 */
import type { AssistantBlock } from '../api/content';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../lib/json-depth';
import type { ModelStreamPart } from '../providers/types';
import type { Emit, ToolExecution } from './events';

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

type OpenBlock =
  | { kind: 'text' | 'thinking'; blockId: string; contentIndex: number; text: string; signature?: string; redacted?: true }
  | { kind: 'tool'; blockId: string; contentIndex: number; index: number; toolCallId: string; name: string; args: string; signature?: string };

export class BlockAssembler {
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
        if (part.signature) block.signature = part.signature;
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
      return { type: 'tool_use', toolCallId: block.toolCallId, name: block.name, input: call?.input ?? {}, ...(block.signature !== undefined && { signature: block.signature }) };
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
