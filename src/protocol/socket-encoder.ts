/**
 * Seed 003's chat-socket frames of a turn, a pure function of the internal event stream:
 * `completion_init` first; text by token (`llm_text_chunk`) and by sentence (`llm_text_sentence`,
 * indexes from 0 per message), the block's whole text (`text_echo`) when it ends; thinking likewise
 * when the completion asked for `reasoning`; tool calls as `tool_call_chunk`s (the first with id and
 * name, then argument fragments) and their results as `tool_call`; `assistant_message_complete` per
 * model answer; `completion_done` last, after `stop_completion` for a cancel or `error` for a failure.
 */
import type { AgentEvent, FinishReason, StopReason, ToolExecution } from '../agent/events';
import { assistantText, plainText, type AssistantMessage, type ToolResultContent } from '../api/content';
import { assertNever } from '../lib/assert-never';
import type { WireEncoder } from './encoder';
import { SentenceSplitter } from './sentence-splitter';
import type { CompletionFinish, ConfirmationState, ServerFrame, SocketToolCall, ToolVisibility } from './socket-frames';

export type SocketEncoderOptions = {
  /** The session id (the seed's conversation). */
  conversationId: string;
  /** The `request_id` of the frame that started the completion, for its `error` frame. */
  requestId: string | null;
  /** Whether thinking is sent. */
  reasoning: boolean;
  visibility: (toolName: string) => ToolVisibility;
};

type ToolChunkState = { index: number; name: string; state: ConfirmationState };

export function createSocketEncoder(options: SocketEncoderOptions): WireEncoder<ServerFrame> {
  const splitters = new Map<string, SentenceSplitter>();
  // Sentence indexes count per message (one model call), across its blocks.
  let textSentences = 0;
  let thinkingSentences = 0;
  let toolCount = 0;
  const tools = new Map<string, ToolChunkState>();
  let partialText = '';

  const sentences = (blockId: string, kind: 'llm_text_sentence' | 'llm_thinking_sentence', final: boolean, delta = ''): ServerFrame[] => {
    const splitter = splitters.get(blockId);
    if (!splitter) return [];
    const done = final ? [...splitter.push(delta), ...splitter.flush()] : splitter.push(delta);
    if (kind === 'llm_text_sentence') textSentences = splitter.nextIndex;
    else thinkingSentences = splitter.nextIndex;
    if (final) splitters.delete(blockId);
    return done.map(({ sentence, index }) => ({ type: kind, sentence, index }));
  };

  const chunk = (toolCallId: string, first: boolean, args: string): ServerFrame[] => {
    const tool = tools.get(toolCallId);
    if (!tool) return [];
    return [
      {
        type: 'tool_call_chunk',
        index: tool.index,
        id: first ? toolCallId : null,
        function: { name: first ? tool.name : null, arguments: args },
        ...options.visibility(tool.name),
        confirmation_state: tool.state,
      },
    ];
  };

  const toolCalls = (message: AssistantMessage): SocketToolCall[] => {
    if (typeof message.content === 'string') return [];
    return message.content.flatMap((block) =>
      block.type === 'tool_use'
        ? [
            {
              id: block.toolCallId,
              type: 'function' as const,
              function: { name: block.name, arguments: JSON.stringify(block.input) },
              ...options.visibility(block.name),
              confirmation_state: tools.get(block.toolCallId)?.state ?? 'none',
            },
          ]
        : [],
    );
  };

  const result = (id: string, name: string, content: ToolResultContent): ServerFrame[] => [
    { type: 'tool_call', id, result: plainText(content), show_result: options.visibility(name).show_result },
  ];

  return {
    encode(event: AgentEvent): ServerFrame[] {
      switch (event.type) {
        case 'turn-start':
          return [{ type: 'completion_init', conversation_id: options.conversationId, user_character_config_id: null }];
        case 'model-call-start':
          textSentences = 0;
          thinkingSentences = 0;
          toolCount = 0;
          return [];
        case 'text-start':
          splitters.set(event.blockId, new SentenceSplitter(textSentences));
          return [];
        case 'text-delta':
          return [{ type: 'llm_text_chunk', chunk: event.delta }, ...sentences(event.blockId, 'llm_text_sentence', false, event.delta)];
        case 'text-end': {
          const frames = sentences(event.blockId, 'llm_text_sentence', true);
          if (event.text !== '' && !event.incomplete) frames.push({ type: 'text_echo', text: event.text });
          return frames;
        }
        case 'thinking-start':
          if (options.reasoning) splitters.set(event.blockId, new SentenceSplitter(thinkingSentences));
          return [];
        case 'thinking-delta':
          if (!options.reasoning) return [];
          return [{ type: 'llm_thinking_chunk', chunk: event.delta }, ...sentences(event.blockId, 'llm_thinking_sentence', false, event.delta)];
        case 'thinking-end':
          return sentences(event.blockId, 'llm_thinking_sentence', true);
        case 'tool-input-start':
          tools.set(event.toolCallId, { index: toolCount++, name: event.name, state: confirmationState(event.execution) });
          return chunk(event.toolCallId, true, '');
        case 'tool-input-delta':
          return chunk(event.toolCallId, false, event.delta);
        case 'assistant-message': {
          if (event.finishReason === 'cancelled') {
            partialText = assistantText(event.message);
            return [];
          }
          const thinking = options.reasoning ? messageThinking(event.message) : null;
          return [
            {
              type: 'assistant_message_complete',
              content: assistantText(event.message),
              tool_calls: toolCalls(event.message),
              thinking,
              finish_reason: FINISH[event.finishReason],
              source_message_id: null,
            },
          ];
        }
        case 'tool-execution-end':
          return result(event.toolCallId, event.name, event.content);
        case 'tool-answer':
          // A client tool's result, shown to every socket; an approval was acknowledged when it came.
          return event.answer.kind === 'result' ? result(event.toolCallId, event.name, event.answer.content) : [];
        case 'model-call-retry':
          return [notification(`The model did not answer (${event.error.code}); trying again in ${(event.delayMs / 1000).toFixed(1)} s.`)];
        case 'context-compacted':
          return [notification(`${event.messagesSummarized} earlier messages were summarised to fit the model's context.`)];
        case 'iteration-limit':
          return [notification(`The agent reached its limit of ${event.maxIterations} tool rounds and answers without tools.`)];
        case 'turn-stop': {
          if (event.error?.code === 'cancelled') {
            return [
              { type: 'stop_completion', partial_text: partialText },
              { type: 'completion_done', finish_reason: 'stop' },
            ];
          }
          const done: ServerFrame = { type: 'completion_done', finish_reason: STOP[event.stopReason] };
          if (event.stopReason !== 'error' || !event.error) return [done];
          return [{ type: 'error', message: event.error.message, code: event.error.code, request_id: options.requestId }, done];
        }
        case 'input-message':
        case 'step-start':
        case 'step-end':
        case 'model-call-end':
        case 'tool-input-end':
        case 'tool-call':
        case 'tool-execution-start':
        case 'tool-progress':
        case 'subagent-event':
        case 'subagent-exposed':
        case 'turn-suspend':
          return [];
        default:
          return assertNever(event);
      }
    },
  };
}

const FINISH: Record<FinishReason, CompletionFinish> = {
  end_turn: 'stop',
  tool_use: 'tool_calls',
  max_tokens: 'length',
  refusal: 'content_filter',
  // The answer goes on in the next call: this part of it stopped normally.
  paused: 'stop',
};

const STOP: Record<StopReason, CompletionFinish> = {
  end_turn: 'stop',
  tool_use: 'tool_calls',
  max_tokens: 'length',
  refusal: 'content_filter',
  error: 'error',
};

function confirmationState(execution: ToolExecution): ConfirmationState {
  if (execution === 'untrusted') return 'pending';
  if (execution === 'client') return 'awaiting_input';
  return 'none';
}

function messageThinking(message: AssistantMessage): string | null {
  if (typeof message.content === 'string') return null;
  const parts = message.content.flatMap((block) => (block.type === 'thinking' && !block.redacted ? [block.thinking] : []));
  return parts.length > 0 ? parts.join('') : null;
}

function notification(message: string): ServerFrame {
  return { type: 'system_notification', message };
}
