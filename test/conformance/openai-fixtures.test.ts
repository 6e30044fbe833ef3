/**
 * The `openai` adapter against recorded real streams of OpenAI-compatible servers: each recording is
 * served as the body of the adapter's fetch, and what the adapter and the loop's block assembler make
 * of it is checked: text, thinking, tool calls, usage, the finish reason, and errors.
 */
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/agent/events';
import { createOpenAIProvider, buildRequestBody } from '../../src/providers/openai/openai-provider';
import type { ModelStreamPart } from '../../src/providers/types';
import deepseekText from '../fixtures/upstream/deepseek/deepseek-reasoner-reasoning-content-usage.sse?raw';
import deepseekTool from '../fixtures/upstream/deepseek/deepseek-reasoner-reasoning-tool-call-cached.sse?raw';
import groqError from '../fixtures/upstream/groq/gpt-oss-120b-reasoning-tool-use-failed-error.sse?raw';
import groqParallel from '../fixtures/upstream/groq/kimi-k2-parallel-tool-calls-x-groq-usage.sse?raw';
import llamacppTool from '../fixtures/upstream/llamacpp/gpt-oss-20b-reasoning-tool-call-timings.sse?raw';
import openaiParallel from '../fixtures/upstream/openai/gpt-4o-parallel-tool-calls-usage.sse?raw';
import openaiRefusal from '../fixtures/upstream/openai/gpt-4o-refusal.sse?raw';
import openaiTool from '../fixtures/upstream/openai/gpt-4o-single-tool-call-usage.sse?raw';
import openaiText from '../fixtures/upstream/openai/gpt-4o-text-usage.sse?raw';
import openrouterParallel from '../fixtures/upstream/openrouter/claude-haiku-4-5-parallel-tool-calls.sse?raw';
import openrouterLength from '../fixtures/upstream/openrouter/minimax-m2-reasoning-length-midstream-error.sse?raw';
import vllmText from '../fixtures/upstream/vllm/crusoe-llama-3-3-70b-text-usage.sse?raw';
import xaiTool from '../fixtures/upstream/xai/grok-code-fast-reasoning-tool-call-cached.sse?raw';
import { blocksBalanced, replayThrough, serve } from '../helpers/replay';

async function replay(body: string | ReadableStream<Uint8Array>, status = 200) {
  const provider = createOpenAIProvider({
    baseUrl: 'http://upstream.test/v1',
    timeouts: { connectMs: 1000, firstByteMs: 1000, idleMs: 1000 },
    fetch: serve(body, status),
  });
  return replayThrough(provider);
}

function checkBlocks(events: AgentEvent[]) {
  expect(blocksBalanced(events)).toBe(true);
}

describe('openai adapter x recorded streams', () => {
  it('plain text with usage (OpenAI gpt-4o)', async () => {
    const { result, events, text } = await replay(openaiText);
    checkBlocks(events);
    expect(text).toBe('Olá!');
    expect(result).toMatchObject({ ok: true, finishReason: 'end_turn', usage: { inputTokens: 20, outputTokens: 2, cachedInputTokens: 0 } });
  });

  it('plain text with usage (vLLM)', async () => {
    const { result, events, text } = await replay(vllmText);
    checkBlocks(events);
    expect(text.length).toBeGreaterThan(10);
    expect(result).toMatchObject({ ok: true, finishReason: 'end_turn' });
    expect(result.usage.inputTokens).toBeGreaterThan(0);
  });

  it('reasoning_content as thinking, then text, with reasoning tokens (DeepSeek)', async () => {
    const { result, events, text, thinking } = await replay(deepseekText);
    checkBlocks(events);
    expect(thinking.length).toBeGreaterThan(100);
    expect(text.length).toBeGreaterThan(10);
    const kinds = events.filter((e) => e.type === 'thinking-start' || e.type === 'text-start').map((e) => e.type);
    expect(kinds).toEqual(['thinking-start', 'text-start']);
    expect(result.ok && result.blocks.map((b) => b.type)).toEqual(['thinking', 'text']);
    expect(result.usage.reasoningTokens).toBeGreaterThan(0);
  });

  it('one tool call with streamed arguments (OpenAI gpt-4o)', async () => {
    const { result, events } = await replay(openaiTool);
    checkBlocks(events);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.finishReason).toBe('tool_use');
    expect(result.toolCalls).toHaveLength(1);
    expect(result.toolCalls[0]).toMatchObject({ name: 'weather' });
    expect(Object.keys(result.toolCalls[0]!.input)).toContain('location');
    expect(events.filter((e) => e.type === 'tool-input-delta').length).toBeGreaterThan(1);
  });

  it.each([
    ['OpenAI gpt-4o', openaiParallel],
    ['OpenRouter claude-haiku-4.5', openrouterParallel],
    ['Groq kimi-k2', groqParallel],
  ])('parallel tool calls (%s)', async (_label, body) => {
    const { result, events } = await replay(body);
    checkBlocks(events);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.finishReason).toBe('tool_use');
    expect(result.toolCalls.map((c) => c.name).sort()).toEqual(['add', 'multiply']);
    for (const call of result.toolCalls) expect(call.invalidArguments).toBeUndefined();
    expect(new Set(result.toolCalls.map((c) => c.toolCallId)).size).toBe(2);
    expect(result.usage.inputTokens).toBeGreaterThan(0);
  });

  it.each([
    ['DeepSeek reasoner', deepseekTool, 320],
    ['xAI grok-code-fast', xaiTool, 384],
    ['llama.cpp gpt-oss', llamacppTool, 0],
  ])('reasoning then a tool call, with cached tokens (%s)', async (_label, body, cached) => {
    const { result, events, thinking } = await replay(body);
    checkBlocks(events);
    expect(thinking.length).toBeGreaterThan(10);
    expect(result).toMatchObject({ ok: true, finishReason: 'tool_use' });
    if (!result.ok) return;
    expect(result.toolCalls).toHaveLength(1);
    expect(result.toolCalls[0]!.invalidArguments).toBeUndefined();
    expect(result.usage.cachedInputTokens).toBe(cached);
  });

  it('a refusal streamed in delta.refusal becomes refusal (OpenAI gpt-4o)', async () => {
    const { result, text } = await replay(openaiRefusal);
    expect(text.length).toBeGreaterThan(5);
    expect(result).toMatchObject({ ok: true, finishReason: 'refusal' });
  });

  it('length, with the error chunk that explains it, is max_tokens (OpenRouter minimax)', async () => {
    const { result, thinking } = await replay(openrouterLength);
    expect(thinking).toBe('We need to respond to a greeting. The user');
    expect(result).toMatchObject({ ok: true, finishReason: 'max_tokens', usage: { inputTokens: 43, outputTokens: 10, reasoningTokens: 11 } });
  });

  it('an `event: error` mid-stream ends the call as an error with open blocks closed (Groq)', async () => {
    const { result, events, thinking } = await replay(groqError);
    checkBlocks(events);
    expect(thinking.length).toBeGreaterThan(10);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe('upstream_error');
    expect(events.find((e) => e.type === 'thinking-end')).toMatchObject({ incomplete: true });
  });

  it.each([
    ['text', openaiText],
    ['tool call', openaiTool],
    ['parallel tool calls', openaiParallel],
    ['reasoning', deepseekText],
  ])('a stream cut before [DONE] is an error, never a finished answer (%s)', async (_label, body) => {
    for (const fraction of [0.25, 0.5, 0.9]) {
      const { result, events } = await replay(body.slice(0, Math.floor(body.length * fraction)));
      checkBlocks(events);
      expect(result).toMatchObject({ ok: false, error: { code: 'upstream_cut' } });
    }
  });

  it('an HTTP error is an error with the status, without the upstream body', async () => {
    const { result } = await replay('{"error":{"message":"secret detail"}}', 503);
    expect(result).toMatchObject({ ok: false, error: { code: 'upstream_error', message: 'The model server answered HTTP 503.' } });
  });

  it('a server that stops sending is a timeout', async () => {
    const stalled = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(openaiText.split('\n\n')[0] + '\n\n'));
      },
    });
    const { result } = await replay(stalled);
    expect(result).toMatchObject({ ok: false, error: { code: 'upstream_timeout' } });
  });

  it('an unreachable server is an error, not an exception', async () => {
    const provider = createOpenAIProvider({
      baseUrl: 'http://upstream.test/v1',
      timeouts: { connectMs: 1000, firstByteMs: 1000, idleMs: 1000 },
      fetch: async () => {
        throw new TypeError('connection refused');
      },
    });
    const parts: ModelStreamPart[] = [];
    for await (const batch of provider.stream({ model: 'm', system: '', messages: [], tools: [], signal: new AbortController().signal })) parts.push(...batch);
    expect(parts).toEqual([{ type: 'error', code: 'upstream_unreachable', message: 'The model server could not be reached.', retryable: true }]);
  });
});

describe('openai request body', () => {
  it('sends history with tool calls and results paired, thinking left out, usage asked for', () => {
    const body = buildRequestBody({
      model: 'gpt-4o',
      system: 'Be brief.',
      signal: new AbortController().signal,
      tools: [{ name: 'calculator', description: 'math', parameters: { type: 'object', properties: {} } }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image', mimeType: 'image/png', data: 'AAAA' }] },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'hmm', signature: 'sig' },
            { type: 'text', text: 'Let me compute.' },
            { type: 'tool_use', toolCallId: 'call_1', name: 'calculator', input: { expression: '1+1' } },
          ],
        },
        { role: 'tool', toolCallId: 'call_1', content: '2' },
      ],
    });
    expect(body).toEqual({
      model: 'gpt-4o',
      stream: true,
      stream_options: { include_usage: true },
      tools: [{ type: 'function', function: { name: 'calculator', description: 'math', parameters: { type: 'object', properties: {} } } }],
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] },
        {
          role: 'assistant',
          content: 'Let me compute.',
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'calculator', arguments: '{"expression":"1+1"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '2' },
      ],
    });
  });

  it('sends an image of a type the API takes, image/jpg as image/jpeg, and any other as a line that says it was left out', () => {
    const body = buildRequestBody({
      model: 'gpt-4o',
      system: '',
      signal: new AbortController().signal,
      tools: [],
      messages: [{ role: 'user', content: [{ type: 'image', mimeType: 'image/JPG', data: 'AAAA' }, { type: 'image', mimeType: 'image/tiff', data: 'SUkq' }] }],
    });
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,AAAA' } },
          { type: 'text', text: '[An image of type image/tiff was left out: this model takes JPEG, PNG, GIF and WebP images.]' },
        ],
      },
    ]);
  });
});
