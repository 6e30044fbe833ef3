/**
 * The `anthropic` adapter against recorded real Messages API streams: text with pings, thinking with
 * its signature, redacted thinking, one and several tool calls, refusal, usage with cache counts,
 * cuts; and the request it builds: signatures sent back verbatim, cache breakpoints, alternation.
 */
import { describe, expect, it } from 'vitest';
import { buildRequestBody, createAnthropicProvider } from '../../src/providers/anthropic/anthropic-provider';
import compaction from '../fixtures/upstream/anthropic/claude-sonnet-4-6-compaction-cache-read.sse?raw';
import refusal from '../fixtures/upstream/anthropic/claude-fable-5-1-refusal.sse?raw';
import redacted from '../fixtures/upstream/anthropic/claude-sonnet-4-5-redacted-thinking.sse?raw';
import parallel from '../fixtures/upstream/anthropic/claude-sonnet-4-parallel-tool-use.sse?raw';
import single from '../fixtures/upstream/anthropic/claude-sonnet-4-single-tool-use.sse?raw';
import textPing from '../fixtures/upstream/anthropic/claude-sonnet-4-text-ping.sse?raw';
import thinkingSignature from '../fixtures/upstream/anthropic/claude-sonnet-4-thinking-signature-text.sse?raw';
import { blocksBalanced, replayThrough, serve } from '../helpers/replay';

const provider = (body: string | ReadableStream<Uint8Array>, status = 200) =>
  createAnthropicProvider({
    baseUrl: 'http://upstream.test',
    apiKey: 'k',
    maxTokens: 1024,
    thinkingBudget: 0,
    timeouts: { connectMs: 1000, firstByteMs: 1000, idleMs: 1000 },
    fetch: serve(body, status),
  });

describe('anthropic adapter x recorded streams', () => {
  it('text with ping events, and usage', async () => {
    const { result, events, text } = await replayThrough(provider(textPing));
    expect(blocksBalanced(events)).toBe(true);
    expect(text.length).toBeGreaterThan(20);
    expect(result).toMatchObject({ ok: true, finishReason: 'end_turn' });
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(result.usage.outputTokens).toBeGreaterThan(0);
  });

  it('thinking with its signature, then text', async () => {
    const { result, events, thinking } = await replayThrough(provider(thinkingSignature));
    expect(blocksBalanced(events)).toBe(true);
    expect(thinking).toMatch(/^This is a straightforward question about pedestrian safety/);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const [first, second] = result.blocks;
    expect(first).toMatchObject({ type: 'thinking', thinking });
    expect(first?.type === 'thinking' && first.signature && first.signature.length > 50).toBe(true);
    expect(second?.type).toBe('text');
  });

  it('redacted thinking, kept as it came, then text', async () => {
    const { result, events } = await replayThrough(provider(redacted));
    expect(blocksBalanced(events)).toBe(true);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.blocks.map((b) => (b.type === 'thinking' ? `thinking:${b.redacted}` : b.type))).toEqual(['thinking:true', 'thinking:true', 'text']);
    const first = result.blocks[0];
    expect(first?.type === 'thinking' && first.signature?.startsWith('EqkECkYIBxgCKkA8AZ4no')).toBe(true);
  });

  it('one tool call with input_json_delta arguments', async () => {
    const { result, events } = await replayThrough(provider(single));
    expect(blocksBalanced(events)).toBe(true);
    expect(result).toMatchObject({ ok: true, finishReason: 'tool_use' });
    if (!result.ok) return;
    expect(result.toolCalls).toHaveLength(1);
    expect(result.toolCalls[0]!.toolCallId).toMatch(/^toolu_/);
    expect(result.toolCalls[0]!.invalidArguments).toBeUndefined();
    expect(result.blocks.map((b) => b.type)).toEqual(['text', 'tool_use']);
  });

  it('several tool calls in one response', async () => {
    const { result } = await replayThrough(provider(parallel));
    expect(result).toMatchObject({ ok: true, finishReason: 'tool_use' });
    if (!result.ok) return;
    expect(result.toolCalls.map((c) => c.name)).toEqual(['add', 'multiply']);
    for (const call of result.toolCalls) expect(Object.keys(call.input).length).toBeGreaterThan(0);
  });

  it('a refusal', async () => {
    const { result } = await replayThrough(provider(refusal));
    expect(result).toMatchObject({ ok: true, finishReason: 'refusal' });
  });

  it('usage with cache reads counted into the input', async () => {
    const { result, text } = await replayThrough(provider(compaction));
    expect(text.length).toBeGreaterThan(0);
    expect(result.ok).toBe(true);
    expect(result.usage).toMatchObject({ inputTokens: 181, outputTokens: 8, cachedInputTokens: 0 });
  });

  it.each([
    ['text', textPing],
    ['thinking', thinkingSignature],
    ['a tool call', single],
  ])('a stream cut before message_stop is an error (%s)', async (_label, body) => {
    for (const fraction of [0.3, 0.6, 0.95]) {
      const { result, events } = await replayThrough(provider(body.slice(0, Math.floor(body.length * fraction))));
      expect(blocksBalanced(events)).toBe(true);
      expect(result).toMatchObject({ ok: false, error: { code: 'upstream_cut' } });
    }
  });

  it('an error event mid-stream is an error', async () => {
    const body = [
      'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":5,"output_tokens":1}}}\n\n',
      'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n',
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}\n\n',
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
    ].join('');
    const { result } = await replayThrough(provider(body));
    expect(result).toMatchObject({ ok: false, error: { code: 'upstream_error', message: 'The model server reported an error: overloaded_error.' } });
  });

  it('an HTTP 529 is a retryable error', async () => {
    const { result } = await replayThrough(provider('{"type":"error","error":{"type":"overloaded_error"}}', 529));
    expect(result).toMatchObject({ ok: false, error: { code: 'upstream_error', message: 'The model server answered HTTP 529.' } });
  });
});

describe('anthropic request body', () => {
  it('sends signatures and redacted thinking back verbatim, drops unsigned thinking, pairs tool ids, marks cache breakpoints', () => {
    const body = buildRequestBody(
      {
        model: 'claude-sonnet-4-5',
        system: 'Be brief.',
        signal: new AbortController().signal,
        tools: [
          { name: 'a', description: 'A', parameters: { type: 'object', properties: {} } },
          { name: 'b', description: 'B', parameters: { type: 'object', properties: {} } },
        ],
        messages: [
          { role: 'system', content: 'Answer in French.' },
          { role: 'user', content: 'hello' },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: 'unsigned, from another provider' },
              { type: 'thinking', thinking: 'signed', signature: 'SIG' },
              { type: 'thinking', thinking: '', signature: 'ENCRYPTED', redacted: true },
              { type: 'text', text: '' },
              { type: 'tool_use', toolCallId: 'call.1', name: 'a', input: { x: 1 } },
              { type: 'tool_use', toolCallId: 'call_2', name: 'b', input: {} },
            ],
          },
          { role: 'tool', toolCallId: 'call.1', content: 'one' },
          { role: 'tool', toolCallId: 'call_2', content: 'failed', isError: true },
          { role: 'user', content: 'thanks' },
        ],
      },
      { maxTokens: 2048, thinkingBudget: 1024 },
    );
    expect(body).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 2048,
      stream: true,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      system: [{ type: 'text', text: 'Be brief.\n\nAnswer in French.', cache_control: { type: 'ephemeral' } }],
      tools: [
        { name: 'a', description: 'A', input_schema: { type: 'object', properties: {} } },
        { name: 'b', description: 'B', input_schema: { type: 'object', properties: {} }, cache_control: { type: 'ephemeral' } },
      ],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'hello' }] },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'signed', signature: 'SIG' },
            { type: 'redacted_thinking', data: 'ENCRYPTED' },
            { type: 'tool_use', id: 'call_1', name: 'a', input: { x: 1 } },
            { type: 'tool_use', id: 'call_2', name: 'b', input: {} },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'call_1', content: [{ type: 'text', text: 'one' }] },
            { type: 'tool_result', tool_use_id: 'call_2', content: [{ type: 'text', text: 'failed' }], is_error: true },
            { type: 'text', text: 'thanks', cache_control: { type: 'ephemeral' } },
          ],
        },
      ],
    });
  });

  it('sends an image of a type the API takes, image/jpg as image/jpeg, and any other as a line that says it was left out', () => {
    const body = buildRequestBody(
      {
        model: 'claude-sonnet-4-5',
        system: '',
        signal: new AbortController().signal,
        tools: [],
        messages: [
          { role: 'user', content: [{ type: 'image', mimeType: 'image/jpg', data: 'AAAA' }, { type: 'image', mimeType: 'image/bmp', data: 'Qk0=' }] },
          { role: 'assistant', content: [{ type: 'tool_use', toolCallId: 'call_1', name: 'shot', input: {} }] },
          { role: 'tool', toolCallId: 'call_1', content: [{ type: 'image', mimeType: 'image/svg+xml', data: 'PHN2Zz4=' }] },
        ],
      },
      { maxTokens: 100, thinkingBudget: 0 },
    );
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: 'AAAA' } },
          { type: 'text', text: '[An image of type image/bmp was left out: this model takes JPEG, PNG, GIF and WebP images.]' },
        ],
      },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'call_1', name: 'shot', input: {} }] },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'call_1',
            content: [{ type: 'text', text: '[An image of type image/svg+xml was left out: this model takes JPEG, PNG, GIF and WebP images.]' }],
            cache_control: { type: 'ephemeral' },
          },
        ],
      },
    ]);
  });
});
