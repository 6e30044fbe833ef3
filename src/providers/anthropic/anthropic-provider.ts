/**
 * `anthropic`: the Messages API, streaming. Text; thinking with its signature, and redacted thinking,
 * kept for the way back; tool use with `input_json_delta` arguments, several per response; `ping`;
 * an `error` event mid-stream; usage with cache reads and writes. Prompt caching marks the system
 * prompt, the tools and the end of the conversation (see `convert-messages.ts`).
 *
 * Completion is proven by `message_stop`: a stream that ends without it was cut.
 */
import { isRecord } from '../../lib/is-record';
import { wellFormedJsonWithItems } from '../../lib/well-formed-json';
import type { z } from '../../lib/zod';
import type { Usage } from '../vocabulary';
import type { ModelProvider, ModelRequest, ModelStreamPart } from '../types';
import { streamOverHttp, type Fail, type MessageReader } from '../upstream-stream';
import { withoutRefused } from '../refused-tools';
import { sendAsTaught } from '../send-as-taught';
import type { UpstreamTimeouts } from '../upstream-timer';
import { convertMessages, convertSystem, convertTools, messageJson } from './convert-messages';
import { streamEventSchema, type AnthropicUsage, type StreamEvent } from './event-schema';
import { mapStopReason } from './map-stop-reason';
import { knowledgeOf, learnFromRefusal, type SentCall, type ServerKnowledge } from './server-knowledge';

export const ANTHROPIC_VERSION = '2023-06-01';

/** Error event types that may pass if the request is sent again (only before any output). */
const RETRYABLE_ERRORS = new Set(['overloaded_error', 'api_error', 'rate_limit_error', 'timeout_error']);

export type AnthropicProviderOptions = {
  baseUrl: string;
  apiKey?: string;
  maxTokens: number;
  /** Extended thinking's token budget; 0 leaves thinking off. */
  thinkingBudget: number;
  timeouts: UpstreamTimeouts;
  fetch?: typeof fetch;
};

export function createAnthropicProvider(options: AnthropicProviderOptions): ModelProvider {
  return { stream: (request) => streamMessages(request, options) };
}

/** The request's body, within what the server and model told us (`server-knowledge.ts`). */
export function buildRequestBody(request: ModelRequest, options: Pick<AnthropicProviderOptions, 'maxTokens' | 'thinkingBudget'>, knowledge: ServerKnowledge = {}) {
  const body: Record<string, unknown> = {
    model: request.model,
    max_tokens: Math.min(request.maxTokens ?? options.maxTokens, knowledge.outputLimit ?? Infinity),
    messages: convertMessages(request.messages),
    stream: true,
  };
  const system = convertSystem(request.system, request.messages);
  if (system) body.system = system;
  const tools = withoutRefused(request.tools, knowledge.refusedTools);
  if (tools.length > 0) body.tools = convertTools(tools);
  if (tools.length > 0 && request.toolChoice === 'none' && !knowledge.noToolChoice) body.tool_choice = { type: 'none' };
  // Thinking needs room below the output limit, and takes no temperature of the caller's. A model
  // that thinks as it sees fit takes no budget; one that does not think takes none of it.
  const asked = options.thinkingBudget > 0 && knowledge.thinking !== 'off';
  if (asked && knowledge.thinking === 'adaptive') body.thinking = { type: 'adaptive' };
  else if (asked && options.thinkingBudget < (body.max_tokens as number)) body.thinking = { type: 'enabled', budget_tokens: options.thinkingBudget };
  else if (request.temperature !== undefined) body.temperature = request.temperature;
  return body;
}

function streamMessages(request: ModelRequest, options: AnthropicProviderOptions): AsyncGenerator<ModelStreamPart[]> {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/v1/messages`;
  const post = (signal: AbortSignal, body: Record<string, unknown>) =>
    (options.fetch ?? fetch)(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        'anthropic-version': ANTHROPIC_VERSION,
        ...(options.apiKey ? { 'x-api-key': options.apiKey } : {}),
      },
      // The history's blocks are written once each (`convertMessages` keeps them).
      body: wellFormedJsonWithItems(body, 'messages', messageJson),
      signal,
    });
  const server = `${url} ${request.model}`;
  const send = (signal: AbortSignal) =>
    sendAsTaught(signal, knowledgeOf(server), {
      provider: 'anthropic',
      server,
      statuses: [400],
      build: (knowledge) => buildRequestBody(request, options, knowledge),
      post,
      learn: (knowledge, body, detail) => learnFromRefusal(server, knowledge, sentOf(body), detail),
    });
  return streamOverHttp('anthropic', request.signal, options.timeouts, send, 'message_stop', eventReader);
}

/** What a refused call was sent, as `learnFromRefusal` reads it. */
function sentOf(body: Record<string, unknown>): SentCall {
  return {
    maxTokens: body.max_tokens as number,
    tools: ((body.tools ?? []) as { name: string }[]).map((tool) => tool.name),
    thinking: (body.thinking as { type: string } | undefined)?.type,
    toolChoice: 'tool_choice' in body,
  };
}

/** Each event's parts; the stream ends at `message_stop` (with the usage and stop reason gathered before it), or at an error. */
function eventReader(fail: Fail): MessageReader {
  let reported: AnthropicUsage = {};
  let stopReason: string | null | undefined;
  // A call's whole input as its block started with it, taken if no piece of it is streamed after.
  const startedWith = new Map<number, string>();
  return (message, parts) => {
    let parsed: z.util.SafeParseResult<StreamEvent>;
    try {
      parsed = streamEventSchema().safeParse(JSON.parse(message.data));
    } catch {
      console.error('anthropic: event is not JSON', message.data.slice(0, 500));
      return fail('upstream_invalid', 'The model server sent an event that is not JSON.', false);
    }
    if (!parsed.success) return undefined; // an event type this adapter does not know yet
    const event = parsed.data;
    switch (event.type) {
      case 'message_start':
        reported = { ...reported, ...withoutNulls(event.message.usage) };
        return undefined;
      case 'content_block_start': {
        const block = event.content_block;
        // The Messages API starts each block empty and streams what it holds. Some compatible servers
        // and proxies send a block whole at its start instead, and no delta after: taken as it came.
        if (block.type === 'tool_use') {
          parts.push({ type: 'tool-call-delta', index: event.index, ...(block.id ? { id: block.id } : {}), ...(block.name ? { name: block.name } : {}), argumentsDelta: '' });
          if (isRecord(block.input) && Object.keys(block.input).length > 0) startedWith.set(event.index, JSON.stringify(block.input));
        } else if (block.type === 'redacted_thinking' && block.data) {
          parts.push({ type: 'redacted-thinking', data: block.data });
        } else if (block.type === 'text' && block.text) {
          parts.push({ type: 'text-delta', delta: block.text });
        } else if (block.type === 'thinking') {
          if (block.thinking) parts.push({ type: 'thinking-delta', delta: block.thinking });
          if (block.signature) parts.push({ type: 'thinking-signature', signature: block.signature });
        }
        return undefined;
      }
      case 'content_block_delta': {
        const delta = event.delta;
        if (delta.type === 'text_delta' && delta.text) parts.push({ type: 'text-delta', delta: delta.text });
        else if (delta.type === 'thinking_delta' && delta.thinking) parts.push({ type: 'thinking-delta', delta: delta.thinking });
        else if (delta.type === 'signature_delta' && delta.signature) parts.push({ type: 'thinking-signature', signature: delta.signature });
        else if (delta.type === 'input_json_delta' && delta.partial_json) {
          startedWith.delete(event.index); // the streamed input is the whole of it
          parts.push({ type: 'tool-call-delta', index: event.index, argumentsDelta: delta.partial_json });
        }
        return undefined;
      }
      case 'content_block_stop': {
        const input = startedWith.get(event.index);
        if (input !== undefined) {
          startedWith.delete(event.index);
          parts.push({ type: 'tool-call-delta', index: event.index, argumentsDelta: input });
        }
        parts.push({ type: 'block-end' });
        return undefined;
      }
      case 'message_delta':
        stopReason = event.delta.stop_reason ?? stopReason;
        reported = { ...reported, ...withoutNulls(event.usage) };
        return undefined;
      case 'message_stop':
        parts.push({ type: 'usage', usage: mapUsage(reported) });
        if (stopReason === 'model_context_window_exceeded') {
          return { type: 'error', code: 'context_overflow', message: 'The prompt and answer outgrew the model’s context window.' };
        }
        return { type: 'finish', reason: mapStopReason(stopReason) };
      case 'ping':
        return undefined;
      case 'error': {
        console.error('anthropic: error event', event.error);
        const retryable = RETRYABLE_ERRORS.has(event.error.type);
        return { type: 'error', code: 'upstream_error', message: `The model server reported an error: ${event.error.type}.`, retryable };
      }
    }
  };
}

/** Anthropic counts cache reads and writes apart from `input_tokens`; ours include them. */
function mapUsage(usage: AnthropicUsage): Partial<Usage> {
  const read = usage.cache_read_input_tokens ?? 0;
  const written = usage.cache_creation_input_tokens ?? 0;
  return {
    inputTokens: (usage.input_tokens ?? 0) + read + written,
    outputTokens: usage.output_tokens ?? 0,
    cachedInputTokens: read,
    cacheWriteInputTokens: written,
  };
}

function withoutNulls(usage: AnthropicUsage | null | undefined): AnthropicUsage {
  return Object.fromEntries(Object.entries(usage ?? {}).filter(([, value]) => value != null));
}
