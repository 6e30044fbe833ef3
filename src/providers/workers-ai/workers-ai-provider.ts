/**
 * `workers-ai`: models on Cloudflare Workers AI through the `AI` binding, streaming text, reasoning
 * and (for the models that take tools) tool calls. The binding is taken at its own interface,
 * `run(model, inputs)`, which with `stream: true` resolves to a stream of SSE bytes ending in
 * `data: [DONE]`, or, for a model that does not stream, to its whole answer.
 */
import { plainText, type HistoryMessage } from '../../api/content';
import { wellFormed } from '../../lib/well-formed-json';
import type { z } from '../../lib/zod';
import { mapFinishReason } from '../openai/map-finish-reason';
import { convertMessages, convertTools, type ChatMessage } from '../openai/convert-messages';
import type { ModelProvider, ModelRequest, ModelStreamPart } from '../types';
import { partBatches, upstreamFailure, type Fail, type MessageReader, type OpenBody } from '../upstream-stream';
import { UpstreamTimer, type UpstreamTimeouts } from '../upstream-timer';
import { callSlots } from '../openai/call-slots';
import { aiChunkSchema, type AiChunk, type AiToolCall } from './chunk-schema';

/** The part of the `AI` binding this provider uses. */
export interface AiBinding {
  run(model: string, inputs: Record<string, unknown>): Promise<unknown>;
}

export type WorkersAIProviderOptions = { ai: AiBinding; maxTokens: number; timeouts: UpstreamTimeouts };

export function createWorkersAIProvider(options: WorkersAIProviderOptions): ModelProvider {
  return { stream: (request) => streamRun(request, options) };
}

/**
 * The binding's inputs, lone surrogates mended (`wellFormed`): the binding writes the JSON itself, so
 * the mending is done here, on the values. Each history message's part is kept with it (`aiMessage`);
 * only the system prompt and the tools are mended anew at each call.
 */
export function buildInputs(request: ModelRequest, maxTokens: number): Record<string, unknown> {
  const messages = request.messages.flatMap((message) => aiMessage(message) ?? []);
  const inputs: Record<string, unknown> = { stream: true, max_tokens: request.maxTokens ?? maxTokens };
  if (request.system) messages.unshift(wellFormed({ role: 'system', content: request.system }));
  if (request.tools.length > 0 && request.toolChoice !== 'none') inputs.tools = wellFormed(convertTools(request.tools));
  if (request.temperature !== undefined) inputs.temperature = request.temperature;
  return { messages, ...inputs };
}

/**
 * Each history message as the binding takes it, kept with the message: a session's history goes with
 * every call, and all but its last messages were made the same way for the call before (decision 24;
 * a history message never changes once made). Workers AI models take text content only: blocks are
 * flattened, images named. The binding refuses the `content: null` of an answer that only called
 * tools, which Chat Completions allows: "" says the same. Undefined for an answer that says nothing.
 */
function aiMessage(message: HistoryMessage): ChatMessage | undefined {
  if (kept.has(message)) return kept.get(message);
  const [converted] = convertMessages('', [flattenContent(message)]);
  const value = converted && wellFormed(converted.content === null ? { ...converted, content: '' } : converted);
  kept.set(message, value);
  return value;
}

const kept = new WeakMap<HistoryMessage, ChatMessage | undefined>();

function streamRun(request: ModelRequest, options: WorkersAIProviderOptions): AsyncGenerator<ModelStreamPart[]> {
  const timer = new UpstreamTimer(options.timeouts, request.signal);
  const fail = upstreamFailure(timer, request.signal);
  const open: OpenBody = async () => {
    let output: unknown;
    try {
      output = await timer.race(options.ai.run(request.model, buildInputs(request, options.maxTokens)));
    } catch (cause) {
      if (!timer.signal.aborted) console.error('workers-ai: run failed', cause);
      return fail('upstream_error', 'Workers AI could not run the model.', true);
    }
    if (output instanceof ReadableStream) {
      timer.enter('first-byte');
      return output as ReadableStream<Uint8Array>;
    }
    return wholeAnswer(output) ?? fail('upstream_invalid', 'Workers AI answered with neither a stream nor an answer.', false);
  };
  return partBatches(open, timer, fail, 'workers-ai', '[DONE]', chunkReader(fail));
}

/** Each chunk's parts; the stream ends at `[DONE]` (with the finish reason seen before it, or the calls made), or at an error. */
function chunkReader(fail: Fail): MessageReader {
  let finish: ModelStreamPart | undefined;
  let toolCalls = 0;
  const slotOf = callSlots();
  // Made once for the call, not for each chunk: most chunks bring text and no call.
  const take = (call: AiToolCall, parts: ModelStreamPart[]) => {
    const part = toolCallPart(call, slotOf, toolCalls);
    if (!part) return;
    parts.push(part);
    toolCalls++;
  };
  return (message, parts) => {
    if (message.data.trim() === '[DONE]') return finish ?? { type: 'finish', reason: toolCalls > 0 ? 'tool_use' : 'end_turn' };
    let parsed: z.util.SafeParseResult<AiChunk>;
    try {
      parsed = aiChunkSchema().safeParse(JSON.parse(message.data));
    } catch {
      return fail('upstream_invalid', 'Workers AI sent a chunk that is not JSON.', false);
    }
    if (!parsed.success) {
      console.error('workers-ai: unexpected chunk', message.data.slice(0, 500));
      return fail('upstream_invalid', 'Workers AI sent a chunk of an unexpected shape.', false);
    }
    const chunk = parsed.data;
    if (chunk.response !== undefined && chunk.response !== null && chunk.response !== '') {
      parts.push({ type: 'text-delta', delta: String(chunk.response) });
    }
    if (chunk.tool_calls) for (const call of chunk.tool_calls) take(call, parts);
    for (const choice of chunk.choices ?? []) {
      const thinking = choice.delta?.reasoning_content || choice.delta?.reasoning;
      if (thinking) parts.push({ type: 'thinking-delta', delta: thinking });
      if (choice.delta?.content) parts.push({ type: 'text-delta', delta: choice.delta.content });
      if (choice.delta?.tool_calls) for (const call of choice.delta.tool_calls) take(call, parts);
      if (choice.finish_reason) finish = { type: 'finish', reason: mapFinishReason(choice.finish_reason) };
    }
    // Native chunks say how the answer finished beside `response`, not in `choices`.
    if (chunk.finish_reason) finish = { type: 'finish', reason: mapFinishReason(chunk.finish_reason) };
    if (chunk.usage) {
      const usage: { inputTokens?: number; outputTokens?: number } = {};
      if (chunk.usage.prompt_tokens != null) usage.inputTokens = chunk.usage.prompt_tokens;
      if (chunk.usage.completion_tokens != null) usage.outputTokens = chunk.usage.completion_tokens;
      parts.push({ type: 'usage', usage });
    }
    return undefined;
  };
}

/**
 * Native calls come whole (`{name, arguments}`), each a call of its own; OpenAI-style ones in pieces,
 * told apart as the OpenAI adapter tells them (`call-slots.ts`). Workers AI closes a streamed call
 * with a piece that names nothing (`{id: null, type: null, function: {name: null}}`): not a call.
 */
function toolCallPart(call: AiToolCall, slotOf: ReturnType<typeof callSlots>, position: number): ModelStreamPart | undefined {
  if ('function' in call) {
    const args = call.function.arguments;
    if (!call.id && !call.function.name && !args) return undefined;
    return {
      type: 'tool-call-delta',
      index: slotOf(call.index, call.id),
      ...(call.id ? { id: call.id } : {}),
      ...(call.function.name ? { name: call.function.name } : {}),
      argumentsDelta: typeof args === 'string' ? args : args ? JSON.stringify(args) : '',
    };
  }
  const args = call.arguments;
  return { type: 'tool-call-delta', index: NATIVE_CALLS + position, name: call.name, argumentsDelta: typeof args === 'string' ? args : JSON.stringify(args ?? {}) };
}

/** Where native calls are numbered, apart from the OpenAI-style ones' slots. */
const NATIVE_CALLS = 1000;

/**
 * A whole answer (a model that does not stream, though asked to) as a stream of one chunk: the native
 * shape (`response`, `tool_calls`, `usage`) is a chunk already; Chat Completions' `message` becomes
 * its choice's `delta`. Undefined for anything else.
 */
function wholeAnswer(output: unknown): ReadableStream<Uint8Array> | undefined {
  if (typeof output !== 'object' || output === null) return undefined;
  const { choices } = output as { choices?: unknown };
  const chunk = Array.isArray(choices) ? { ...output, choices: choices.map((choice: { message?: unknown; finish_reason?: unknown }) => ({ delta: choice?.message, finish_reason: choice?.finish_reason })) } : output;
  return new Response(`data: ${JSON.stringify(chunk)}\n\ndata: [DONE]\n\n`).body!;
}

function flattenContent(message: HistoryMessage): HistoryMessage {
  if (message.role !== 'user' || typeof message.content === 'string') return message;
  return { role: 'user', content: plainText(message.content) };
}
