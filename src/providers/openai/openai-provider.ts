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
import { chatChunkSchema, errorBodySchema, type ChatUsage } from './chunk-schema';
import { convertMessages, convertTools } from './convert-messages';
import { mapFinishReason } from './map-finish-reason';

export type OpenAIProviderOptions = {
  baseUrl: string;
  apiKey?: string;
  /** Longest wait for the response headers, and for each next chunk of the stream. */
  timeoutMs: number;
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
  const timeout = new IdleTimeout(options.timeoutMs, request.signal);
  const signal = timeout.signal;
  const fail = (code: string, message: string): ModelStreamPart => {
    if (request.signal.aborted) return { type: 'error', code: 'cancelled', message: 'The turn was cancelled.' };
    if (timeout.fired) return { type: 'error', code: 'upstream_timeout', message: `The model server did not answer within ${options.timeoutMs} ms.` };
    return { type: 'error', code, message };
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
        signal,
      });
    } catch (cause) {
      console.error('openai: request failed', cause);
      yield fail('upstream_unreachable', 'The model server could not be reached.');
      return;
    }
    if (!response.ok || !response.body) {
      const detail = await response.text().catch(() => '');
      console.error('openai: upstream answered', response.status, detail.slice(0, 2000));
      yield fail('upstream_error', `The model server answered HTTP ${response.status}.`);
      return;
    }
    timeout.reset();
    yield* readStream(response.body, timeout, fail);
  } finally {
    timeout.clear();
  }
}

async function* readStream(
  body: ReadableStream<Uint8Array>,
  timeout: IdleTimeout,
  fail: (code: string, message: string) => ModelStreamPart,
): AsyncGenerator<ModelStreamPart> {
  const events = body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  const reader = events.getReader();
  let finish: ModelStreamPart | undefined;
  let refused = false;
  try {
    for (;;) {
      let next: ReadableStreamReadResult<{ event?: string; data: string }>;
      try {
        next = await timeout.race(reader.read());
      } catch (cause) {
        if (!timeout.signal.aborted || timeout.fired) console.error('openai: stream broke', cause);
        yield fail('upstream_cut', 'The model stream broke off before it finished.');
        return;
      }
      if (next.done) {
        yield fail('upstream_cut', 'The model stream ended before [DONE].');
        return;
      }
      timeout.reset();
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
        yield fail('upstream_invalid', 'The model server sent a chunk that is not JSON.');
        return;
      }
      const parsed = chatChunkSchema.safeParse(json);
      if (!parsed.success) {
        console.error('openai: unexpected chunk', data.slice(0, 500));
        yield fail('upstream_invalid', 'The model server sent a chunk of an unexpected shape.');
        return;
      }
      const chunk = parsed.data;
      if (chunk.error) {
        // OpenRouter reports errors inside a chunk; one after the finish reason only explains it.
        console.error('openai: error in chunk', chunk.error);
        if (!finish) {
          yield fail('upstream_error', `The model server reported an error: ${chunk.error.message ?? 'unknown'}.`);
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

function upstreamError(data: string): ModelStreamPart {
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

/**
 * Aborts when nothing has happened for `ms` (`reset()` on every sign of life), or when the turn's
 * own signal aborts; `fired` tells the two apart.
 */
class IdleTimeout {
  private readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  fired = false;

  constructor(
    private readonly ms: number,
    parent: AbortSignal,
  ) {
    if (parent.aborted) this.controller.abort(parent.reason);
    else parent.addEventListener('abort', () => this.controller.abort(parent.reason), { once: true });
    this.reset();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  reset(): void {
    clearTimeout(this.timer ?? null);
    this.timer = setTimeout(() => {
      this.fired = true;
      this.controller.abort(new Error('idle timeout'));
    }, this.ms);
  }

  /** A read that rejects on abort, even if the body ignores it. */
  race<T>(promise: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(new Error('aborted'));
      if (this.controller.signal.aborted) return onAbort();
      this.controller.signal.addEventListener('abort', onAbort, { once: true });
      promise.then(resolve, reject).finally(() => this.controller.signal.removeEventListener('abort', onAbort));
    });
  }

  clear(): void {
    clearTimeout(this.timer ?? null);
  }
}
