/**
 * `openai`: any OpenAI-compatible Chat Completions server, streaming. Text, `reasoning_content` /
 * `reasoning` as thinking, tool calls by index, usage (cached tokens included), refusals.
 *
 * Completion is proven by `data: [DONE]`: a stream that ends without it was cut, and its output is
 * reported as an error, never as a finished answer.
 */
import { EventSourceParserStream } from 'eventsource-parser/stream';
import type { Usage } from '../../agent/usage';
import type { ModelProvider, ModelRequest, ModelStreamPart } from '../types';
import { httpErrorPart, type ErrorPart } from '../upstream-errors';
import { UpstreamTimer, type UpstreamTimeouts } from '../upstream-timer';
import { chatChunkSchema, errorBodySchema, type ChatUsage } from './chunk-schema';
import { convertMessages, convertTools } from './convert-messages';
import { mapFinishReason } from './map-finish-reason';

export type OpenAIProviderOptions = {
  baseUrl: string;
  apiKey?: string;
  timeouts: UpstreamTimeouts;
  fetch?: typeof fetch;
};

export function createOpenAIProvider(options: OpenAIProviderOptions): ModelProvider {
  return { stream: (request) => streamChat(request, options) };
}

export function buildRequestBody(request: ModelRequest) {
  const body: Record<string, unknown> = {
    model: request.model,
    messages: convertMessages(request.system, request.messages),
    stream: true,
    stream_options: { include_usage: true },
  };
  if (request.tools.length > 0) body.tools = convertTools(request.tools);
  return body;
}

async function* streamChat(request: ModelRequest, options: OpenAIProviderOptions): AsyncGenerator<ModelStreamPart> {
  const timer = new UpstreamTimer(options.timeouts, request.signal);
  const fail = (code: string, message: string, retryable: boolean): ErrorPart => {
    if (request.signal.aborted) return { type: 'error', code: 'cancelled', message: 'The turn was cancelled.' };
    if (timer.fired) return { type: 'error', code: 'upstream_timeout', message: timer.describe(), retryable: true };
    return { type: 'error', code, message, retryable };
  };

  try {
    let response: Response;
    try {
      response = await (options.fetch ?? fetch)(`${options.baseUrl.replace(/\/+$/, '')}/chat/completions`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'text/event-stream',
          ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
        },
        body: JSON.stringify(buildRequestBody(request)),
        signal: timer.signal,
      });
    } catch (cause) {
      if (!timer.signal.aborted) console.error('openai: request failed', cause);
      yield fail('upstream_unreachable', 'The model server could not be reached.', true);
      return;
    }
    if (!response.ok || !response.body) {
      yield await httpErrorPart(response, 'openai');
      return;
    }
    timer.enter('first-byte');
    yield* readStream(response.body, timer, fail);
  } finally {
    timer.clear();
  }
}

async function* readStream(
  body: ReadableStream<Uint8Array>,
  timer: UpstreamTimer,
  fail: (code: string, message: string, retryable: boolean) => ErrorPart,
): AsyncGenerator<ModelStreamPart> {
  const events = body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  const reader = events.getReader();
  let finish: ModelStreamPart | undefined;
  let refused = false;
  try {
    for (;;) {
      let next: ReadableStreamReadResult<{ event?: string; data: string }>;
      try {
        next = await timer.race(reader.read());
      } catch (cause) {
        if (!timer.signal.aborted) console.error('openai: stream broke', cause);
        yield fail('upstream_cut', 'The model stream broke off before it finished.', true);
        return;
      }
      if (next.done) {
        yield fail('upstream_cut', 'The model stream ended before [DONE].', true);
        return;
      }
      timer.enter('idle');
      const { event, data } = next.value;
      if (event === 'error') {
        yield upstreamError(data);
        return;
      }
      if (data.trim() === '[DONE]') {
        yield refused ? { type: 'finish', reason: 'refusal' } : (finish ?? { type: 'finish', reason: 'end_turn' });
        return;
      }
      let json: unknown;
      try {
        json = JSON.parse(data);
      } catch {
        console.error('openai: chunk is not JSON', data.slice(0, 500));
        yield fail('upstream_invalid', 'The model server sent a chunk that is not JSON.', false);
        return;
      }
      const parsed = chatChunkSchema.safeParse(json);
      if (!parsed.success) {
        console.error('openai: unexpected chunk', data.slice(0, 500));
        yield fail('upstream_invalid', 'The model server sent a chunk of an unexpected shape.', false);
        return;
      }
      const chunk = parsed.data;
      if (chunk.error) {
        // OpenRouter reports errors inside a chunk; one after the finish reason only explains it.
        console.error('openai: error in chunk', chunk.error);
        if (!finish) {
          yield fail('upstream_error', `The model server reported an error: ${chunk.error.message ?? 'unknown'}.`, false);
          return;
        }
      }
      if (chunk.usage) yield { type: 'usage', usage: mapUsage(chunk.usage) };
      for (const choice of chunk.choices ?? []) {
        const delta = choice.delta;
        if (delta?.reasoning_content) yield { type: 'thinking-delta', delta: delta.reasoning_content };
        else if (delta?.reasoning) yield { type: 'thinking-delta', delta: delta.reasoning };
        if (delta?.content) yield { type: 'text-delta', delta: delta.content };
        if (delta?.refusal) {
          refused = true;
          yield { type: 'text-delta', delta: delta.refusal };
        }
        for (const call of delta?.tool_calls ?? []) {
          yield {
            type: 'tool-call-delta',
            index: call.index ?? 0,
            ...(call.id ? { id: call.id } : {}),
            ...(call.function?.name ? { name: call.function.name } : {}),
            argumentsDelta: call.function?.arguments ?? '',
          };
        }
        if (choice.finish_reason) finish = { type: 'finish', reason: mapFinishReason(choice.finish_reason) };
      }
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

function upstreamError(data: string): ErrorPart {
  console.error('openai: error event', data.slice(0, 2000));
  let message = 'unknown';
  try {
    message = errorBodySchema.parse(JSON.parse(data)).error?.message ?? message;
  } catch {
    // Keep the generic message.
  }
  return { type: 'error', code: 'upstream_error', message: `The model server reported an error: ${message.slice(0, 300)}` };
}

function mapUsage(usage: ChatUsage): Partial<Usage> {
  const mapped: Partial<Usage> = {};
  if (usage.prompt_tokens != null) mapped.inputTokens = usage.prompt_tokens;
  if (usage.completion_tokens != null) mapped.outputTokens = usage.completion_tokens;
  const cached = usage.prompt_tokens_details?.cached_tokens ?? usage.prompt_cache_hit_tokens;
  if (cached != null) mapped.cachedInputTokens = cached;
  const reasoning = usage.completion_tokens_details?.reasoning_tokens;
  if (reasoning != null) mapped.reasoningTokens = reasoning;
  return mapped;
}
