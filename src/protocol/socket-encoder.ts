/**
 * The chat protocol's chat-socket frames of a turn, a pure function of the internal event stream:
 * `completion_init` first; text by token (`llm_text_chunk`) and by sentence (`llm_text_sentence`,
 * indexes from 0 per message), the block's whole text (`text_echo`) when it ends; thinking likewise
 * when the completion asked for `reasoning`; tool calls as `tool_call_chunk`s (the first with id and
 * name, then argument fragments) and their results as `tool_call`; `assistant_message_complete` per
 * model answer; `completion_done` last, after `stop_completion` for a cancel or `error` for a failure.
 */
import type { FinishReason, StopReason, ToolExecution } from '../agent/events';
import { assistantText, plainText, type AssistantMessage, type ToolResultContent } from '../api/content';
import { type EncoderTable, ignoring, tableEncoder, type WireEncoder } from './encoder';
import { SentenceSplitter } from './sentence-splitter';
import { notificationFrame, type CompletionFinish, type ConfirmationState, type ServerFrame, type SocketToolCall, type ToolVisibility } from './socket-frames';

export type SocketEncoderOptions = {
  /** The session id (the protocol's conversation). */
  conversationId: string;
  /** The `request_id` of the frame that started the completion, for its `error` frame. */
  requestId: string | null;
  /** Whether thinking is sent. */
  reasoning: boolean;
  visibility: (toolName: string) => ToolVisibility;
};

type ToolChunkState = { index: number; name: string; state: ConfirmationState };

export function createSocketEncoder(options: SocketEncoderOptions): WireEncoder<ServerFrame> {
  const state = new SocketEncoding(options);
  return tableEncoder<ServerFrame>({ ...blockHandlers(state), ...answerHandlers(state) });
}

/** What the encoder keeps between events: the sentence splitters, the counts, the calls it announced. */
class SocketEncoding {
  readonly splitters = new Map<string, SentenceSplitter>();
  // Sentence indexes count per message (one model call), across its blocks.
  textSentences = 0;
  thinkingSentences = 0;
  toolCount = 0;
  readonly tools = new Map<string, ToolChunkState>();
  partialText = '';

  constructor(readonly options: SocketEncoderOptions) {}

  sentences(blockId: string, kind: 'llm_text_sentence' | 'llm_thinking_sentence', final: boolean, delta = ''): ServerFrame[] {
    const splitter = this.splitters.get(blockId);
    if (!splitter) return [];
    const done = final ? [...splitter.push(delta), ...splitter.flush()] : splitter.push(delta);
    if (kind === 'llm_text_sentence') this.textSentences = splitter.nextIndex;
    else this.thinkingSentences = splitter.nextIndex;
    if (final) this.splitters.delete(blockId);
    return done.map(({ sentence, index }) => ({ type: kind, sentence, index }));
  }

  chunk(toolCallId: string, first: boolean, args: string): ServerFrame[] {
    const tool = this.tools.get(toolCallId);
    if (!tool) return [];
    return [
      {
        type: 'tool_call_chunk',
        index: tool.index,
        id: first ? toolCallId : null,
        function: { name: first ? tool.name : null, arguments: args },
        ...this.options.visibility(tool.name),
        confirmation_state: tool.state,
      },
    ];
  }

  toolCalls(message: AssistantMessage): SocketToolCall[] {
    if (typeof message.content === 'string') return [];
    return message.content.flatMap((block) =>
      block.type === 'tool_use'
        ? [
            {
              id: block.toolCallId,
              type: 'function' as const,
              function: { name: block.name, arguments: JSON.stringify(block.input) },
              ...this.options.visibility(block.name),
              confirmation_state: this.tools.get(block.toolCallId)?.state ?? 'none',
            },
          ]
        : [],
    );
  }

  result(id: string, name: string, content: ToolResultContent): ServerFrame[] {
    return [{ type: 'tool_call', id, result: plainText(content), show_result: this.options.visibility(name).show_result }];
  }
}

type Handlers<Types extends keyof EncoderTable<ServerFrame>> = Pick<EncoderTable<ServerFrame>, Types>;

/** The completion's start, and its blocks as they stream: text and thinking, tool calls' chunks. */
function blockHandlers(s: SocketEncoding): Handlers<'turn-start' | 'model-call-start' | 'text-start' | 'text-delta' | 'text-end' | 'thinking-start' | 'thinking-delta' | 'thinking-end' | 'tool-input-start' | 'tool-input-delta'> {
  return {
    'turn-start': () => [{ type: 'completion_init', conversation_id: s.options.conversationId, user_character_config_id: null }],
    'model-call-start': () => {
      s.textSentences = 0;
      s.thinkingSentences = 0;
      s.toolCount = 0;
      return [];
    },
    'text-start': (event) => {
      s.splitters.set(event.blockId, new SentenceSplitter(s.textSentences));
      return [];
    },
    'text-delta': (event) => [{ type: 'llm_text_chunk', chunk: event.delta }, ...s.sentences(event.blockId, 'llm_text_sentence', false, event.delta)],
    'text-end': (event) => {
      const frames = s.sentences(event.blockId, 'llm_text_sentence', true);
      if (event.text !== '' && !event.incomplete) frames.push({ type: 'text_echo', text: event.text });
      return frames;
    },
    'thinking-start': (event) => {
      if (s.options.reasoning) s.splitters.set(event.blockId, new SentenceSplitter(s.thinkingSentences));
      return [];
    },
    'thinking-delta': (event) => {
      if (!s.options.reasoning) return [];
      return [{ type: 'llm_thinking_chunk', chunk: event.delta }, ...s.sentences(event.blockId, 'llm_thinking_sentence', false, event.delta)];
    },
    'thinking-end': (event) => s.sentences(event.blockId, 'llm_thinking_sentence', true),
    'tool-input-start': (event) => {
      s.tools.set(event.toolCallId, { index: s.toolCount++, name: event.name, state: confirmationState(event.execution) });
      return s.chunk(event.toolCallId, true, '');
    },
    'tool-input-delta': (event) => s.chunk(event.toolCallId, false, event.delta),
  };
}

/** Whole answers, tools' results, notices, the end; and what the socket does not show. */
function answerHandlers(s: SocketEncoding): Handlers<Exclude<keyof EncoderTable<ServerFrame>, keyof ReturnType<typeof blockHandlers>>> {
  return {
    'assistant-message': (event) => {
      if (event.finishReason === 'cancelled') {
        s.partialText = assistantText(event.message);
        return [];
      }
      const thinking = s.options.reasoning ? messageThinking(event.message) : null;
      return [
        {
          type: 'assistant_message_complete',
          content: assistantText(event.message),
          tool_calls: s.toolCalls(event.message),
          thinking,
          finish_reason: FINISH[event.finishReason],
          source_message_id: null,
        },
      ];
    },
    'tool-execution-end': (event) => s.result(event.toolCallId, event.name, event.content),
    // A client tool's result, shown to every socket; an approval was acknowledged when it came.
    'tool-answer': (event) => (event.answer.kind === 'result' ? s.result(event.toolCallId, event.name, event.answer.content) : []),
    'model-call-retry': (event) => [notificationFrame(`The model did not answer (${event.error.code}); trying again in ${(event.delayMs / 1000).toFixed(1)} s.`)],
    'context-compacted': (event) => [notificationFrame(`${event.messagesSummarized} earlier messages were summarised to fit the model's context.`)],
    'iteration-limit': (event) => [notificationFrame(`The agent reached its limit of ${event.maxIterations} tool rounds and answers without tools.`)],
    'turn-stop': (event) => {
      if (event.error?.code === 'cancelled') {
        return [
          { type: 'stop_completion', partial_text: s.partialText },
          { type: 'completion_done', finish_reason: 'stop' },
        ];
      }
      const done: ServerFrame = { type: 'completion_done', finish_reason: STOP[event.stopReason] };
      if (event.stopReason !== 'error' || !event.error) return [done];
      return [{ type: 'error', message: event.error.message, code: event.error.code, request_id: s.options.requestId }, done];
    },
    ...ignoring(
      'input-message', 'step-start', 'step-end', 'model-call-end', 'tool-input-end', 'tool-call',
      'tool-execution-start', 'tool-progress', 'subagent-event', 'subagent-exposed', 'turn-suspend',
    ),
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
