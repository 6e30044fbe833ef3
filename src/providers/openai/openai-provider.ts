/**
 * `openai`: any OpenAI-compatible Chat Completions server, streaming. Text, `reasoning_content` /
 * `reasoning` as thinking, tool calls by index, usage (cached tokens included), refusals.
 *
 * Completion is proven by `data: [DONE]`: a stream that ends without it was cut, and its output is
 * reported as an error, never as a finished answer.
 */
import { wellFormedJsonWithItems } from '../../lib/well-formed-json';
import type { Usage } from '../vocabulary';
import type { ModelProvider, ModelRequest, ModelStreamPart } from '../types';
import { overflowPart, type ErrorPart } from '../upstream-errors';
import { withoutRefused } from '../refused-tools';
import { sendAsTaught } from '../send-as-taught';
import { withinToolLimit } from '../tool-limit';
import { streamOverHttp, type Fail, type MessageReader } from '../upstream-stream';
import type { UpstreamTimeouts } from '../upstream-timer';
import { callSlots } from './call-slots';
import { chatChunkSchema, errorBodySchema, type ChatUsage } from './chunk-schema';
import { convertMessages, convertTools } from './convert-messages';
import { dialectOf, learnFrom, type ChatDialect } from './dialect';
import { mapFinishReason } from './map-finish-reason';
import { textChunk } from './text-chunk';

export type OpenAIProviderOptions = {
  baseUrl: string;
  apiKey?: string;
  timeouts: UpstreamTimeouts;
  fetch?: typeof fetch;
};

export function createOpenAIProvider(options: OpenAIProviderOptions): ModelProvider {
  return { stream: (request) => streamChat(request, options) };
}

/** The body of a call, in the server's dialect (`dialect.ts`). */
export function buildRequestBody(request: ModelRequest, dialect: ChatDialect = {}) {
  const body: Record<string, unknown> = {
    model: request.model,
    messages: convertMessages(request.system, request.messages, dialect),
    stream: true,
  };
  if (!dialect.noStreamOptions) body.stream_options = { include_usage: true };
  // Uncallable tools are left out: Chat Completions takes a history of calls without tools, and
  // not every compatible server takes `tool_choice`.
  if (request.tools.length > 0 && request.toolChoice !== 'none' && !dialect.noTools) body.tools = convertTools(withinToolLimit(withoutRefused(request.tools, dialect.refusedTools), dialect.maxTools), dialect);
  if (request.temperature !== undefined && !dialect.noTemperature) body.temperature = request.temperature;
  // `max_tokens` is the field every OpenAI-compatible server takes; OpenAI's reasoning models want the other.
  if (request.maxTokens !== undefined) body[dialect.maxCompletionTokens ? 'max_completion_tokens' : 'max_tokens'] = Math.min(request.maxTokens, dialect.maxOutputTokens ?? Infinity);
  return body;
}

function streamChat(request: ModelRequest, options: OpenAIProviderOptions): AsyncGenerator<ModelStreamPart[]> {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const post = (signal: AbortSignal, body: Record<string, unknown>) =>
    (options.fetch ?? fetch)(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
      },
      // The history's messages are written once each (`convertMessages` keeps their conversions).
      body: wellFormedJsonWithItems(body, 'messages'),
      signal,
    });
  const server = `${url} ${request.model}`;
  // OpenRouter answers 404 where no provider of a model takes what was asked (tools).
  const send = (signal: AbortSignal) =>
    sendAsTaught(signal, dialectOf(server), {
      provider: 'openai',
      server,
      statuses: [400, 404],
      build: (dialect) => buildRequestBody(request, dialect),
      post,
      learn: (dialect, body, detail) => learnFrom(server, dialect, detail, ((body.tools ?? []) as { function: { name: string } }[]).map((tool) => tool.function.name)),
    });
  return streamOverHttp('openai', request.signal, options.timeouts, send, '[DONE]', chunkReader);
}

/** Each chunk's parts; the stream ends at `[DONE]` (with the finish reason seen before it), or at an error. */
function chunkReader(fail: Fail): MessageReader {
  let finish: ModelStreamPart | undefined;
  let refused = false;
  let counted = false;
  const slotOf = callSlots();
  // How the answer finished, as far as the stream said: a refusal, else its finish reason.
  const finished = (): ModelStreamPart => (refused ? { type: 'finish', reason: 'refusal' } : (finish ?? { type: 'finish', reason: 'end_turn' }));
  const read: MessageReader = ({ event, data }, parts) => {
    if (event === 'error') return upstreamError(data);
    if (data.trim() === '[DONE]') return finished();
    let json: unknown;
    try {
      json = JSON.parse(data);
    } catch {
      console.error('openai: chunk is not JSON', data.slice(0, 500));
      return fail('upstream_invalid', 'The model server sent a chunk that is not JSON.', false);
    }
    const chunk = textChunk(json) ?? chatChunkSchema().safeParse(json).data;
    if (!chunk) {
      console.error('openai: unexpected chunk', data.slice(0, 500));
      return fail('upstream_invalid', 'The model server sent a chunk of an unexpected shape.', false);
    }
    if (chunk.error) {
      // OpenRouter reports errors inside a chunk, and llama.cpp a prompt over its context; one after
      // the finish reason only explains it.
      console.error('openai: error in chunk', chunk.error);
      if (!finish) return overflowPart(chunk.error.message ?? '') ?? fail('upstream_error', `The model server reported an error: ${chunk.error.message ?? 'unknown'}.`, false);
    }
    if (chunk.usage) {
      counted = true;
      parts.push({ type: 'usage', usage: mapUsage(chunk.usage) });
    }
    for (const choice of chunk.choices ?? []) {
      const delta = choice.delta;
      if (delta?.reasoning_content) parts.push({ type: 'thinking-delta', delta: delta.reasoning_content });
      else if (delta?.reasoning) parts.push({ type: 'thinking-delta', delta: delta.reasoning });
      if (delta?.content) parts.push({ type: 'text-delta', delta: delta.content });
      if (delta?.refusal) {
        refused = true;
        parts.push({ type: 'text-delta', delta: delta.refusal });
      }
      for (const call of delta?.tool_calls ?? []) {
        parts.push({
          type: 'tool-call-delta',
          index: slotOf(call.index, call.id),
          ...(call.id ? { id: call.id } : {}),
          ...(call.function?.name ? { name: call.function.name } : {}),
          argumentsDelta: call.function?.arguments ?? '',
          ...(call.extra_content?.google?.thought_signature ? { signature: call.extra_content.google.thought_signature } : {}),
        });
      }
      if (choice.finish_reason) finish = { type: 'finish', reason: mapFinishReason(choice.finish_reason) };
    }
    return undefined;
  };
  // Some servers (llama.cpp's forks, text-generation-webui) end the body after the finish reason and
  // the usage, without `data: [DONE]`: the answer is whole. Without either it was cut short (a call
  // whose usage never came would go uncounted).
  read.cut = () => (finish && counted ? finished() : undefined);
  return read;
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
