/**
 * Context that never overflows: against a stand-in with a 3,000-token window, a long session never
 * sends a prompt over it, compacts by summary calls that are stored, keeps every tool call paired and
 * every original message; an overflow answer brings one harder compaction, then max_tokens; a
 * message larger than the window is summarised shortened; a huge tool result is stored whole and
 * sent shortened.
 */
import { describe, expect, it } from 'vitest';
import { checkHistoryInvariants, history, jsonTurn, newSessionId, turn, user } from '../helpers/api';
import { sentWith } from '../helpers/upstream-log';

const WINDOW = 3000;

const isSummaryCall = (body: any) => String(body.messages[0]?.content).startsWith('You summarise conversations');

describe('context management', () => {
  it('keeps a 1,000-turn session within the window, summarising as it grows, losing nothing', { timeout: 120_000 }, async () => {
    const id = newSessionId('long');
    const model = 'openai:script/echo';
    let compactions = 0;
    for (let index = 0; index < 1000; index++) {
      const text = index % 10 === 9 ? `${id} message ${index}: calc please` : `${id} message ${index}: ${'words '.repeat(10)}`;
      const body = await jsonTurn(id, { messages: [user(text)], model });
      expect(body.stopReason).toBe('end_turn');
      compactions += body.compacted?.length ?? 0;
    }
    const sent = await sentWith(id);
    const summaries = sent.filter(isSummaryCall);
    expect(summaries.length).toBeGreaterThan(5);
    expect(summaries.length).toBe(compactions);
    expect(sent.length).toBeGreaterThan(1100); // 1,000 answers, 100 tool rounds, the summaries
    for (const body of sent) expect(body.promptTokens).toBeLessThanOrEqual(WINDOW);

    const stored = await history(id);
    const messages = stored.filter((m) => m.role !== 'compaction');
    const markers = stored.filter((m) => m.role === 'compaction');
    expect(markers).toHaveLength(compactions);
    expect(markers.at(-1).summarizedMessages).toBeGreaterThan(markers[0].summarizedMessages);
    expect(messages.filter((m) => m.role === 'user')).toHaveLength(1000);
    expect(messages.filter((m) => m.role === 'tool')).toHaveLength(100);
    checkHistoryInvariants(messages);
  });

  it('compacts harder once on an overflow answer, then stops with max_tokens "context_full"', async () => {
    const id = newSessionId('overflow');
    for (let index = 0; index < 6; index++) await jsonTurn(id, { messages: [user(`${id} ${index} ${'padding '.repeat(20)}`)], model: 'openai:script/echo' });
    const body = await jsonTurn(id, { messages: [user(`${id} and now?`)], model: 'openai:script/overflow' });
    expect(body).toMatchObject({ stopReason: 'max_tokens', error: { code: 'context_full' } });
    expect(body.compacted).toEqual([expect.objectContaining({ reason: 'overflow' })]);
    const overflowCalls = (await sentWith(id)).filter((sent) => sent.model === 'script/overflow');
    // The two tries at the answer, and the summary call between them.
    expect(overflowCalls).toHaveLength(3);
    expect(isSummaryCall(overflowCalls[1])).toBe(true);
  });

  it('goes on after a message larger than the window: its turn stops context_full, the next summarises it shortened', async () => {
    const id = newSessionId('pasted');
    const pasted = `${id} ${'lorem ipsum dolor sit amet '.repeat(800)}the end`; // about 5,400 tokens
    expect(await jsonTurn(id, { messages: [user(pasted)], model: 'openai:script/echo' })).toMatchObject({ stopReason: 'max_tokens', error: { code: 'context_full' } });
    // Once it is an earlier message, the summary is made of its beginning and its end.
    const next = await jsonTurn(id, { messages: [user(`${id} and now?`)], model: 'openai:script/echo' });
    expect(next.stopReason).toBe('end_turn');
    expect(next.compacted).toHaveLength(1);
    const summary = (await sentWith(id)).find(isSummaryCall)!;
    expect(summary.promptTokens).toBeLessThanOrEqual(WINDOW);
    expect(summary.messages[1].content).toMatch(new RegExp(`^user: ${id} lorem ipsum .* \\[… \\d+ characters left out …\\] .*the end$`, 's'));
    expect((await jsonTurn(id, { messages: [user(`${id} again`)], model: 'openai:script/echo' })).stopReason).toBe('end_turn');
    // The history keeps the message whole.
    expect((await history(id)).find((m) => m.role === 'user')?.content).toBe(pasted);
  });

  it('summarises a document pasted a few turns back rather than keep it: the next turn on a small window fits at once', async () => {
    const id = newSessionId('pasted-earlier');
    expect((await jsonTurn(id, { messages: [user(`${id} first`)], model: 'openai:script/echo' })).stopReason).toBe('end_turn');
    // A model with a large window takes the document.
    const pasted = `${id} ${'lorem ipsum dolor sit amet '.repeat(600)}`;
    expect((await jsonTurn(id, { messages: [user(pasted)], model: 'openai:replay/openai/gpt-4o-text-usage' })).stopReason).toBe('end_turn');
    const next = await jsonTurn(id, { messages: [user(`${id} and now?`)], model: 'openai:script/echo' });
    expect(next.stopReason).toBe('end_turn');
    expect(next.compacted).toEqual([expect.objectContaining({ messagesSummarized: 4 })]);
  });

  // Models that report fewer input tokens than the reckoning's (these recordings report the same count
  // whatever they are sent) teach the session a low rate. The larger document passes the budget at that
  // rate (its summary call overflows); the smaller one fits it, and the answer's call overflows.
  it.each([
    ['its summary call', 600, 'threshold', [true, false]],
    ['the answer’s call', 480, 'overflow', [false]],
  ])('measures again when %s overflows after the counts learnt so far were low: the summary fits, the session goes on', async (_label, repeats, reason, overflowed) => {
    const id = newSessionId('low-counts');
    const pasted = `${id} ${'lorem ipsum dolor sit amet '.repeat(repeats)}`;
    expect((await jsonTurn(id, { messages: [user(pasted)], model: 'openai:replay/openai/gpt-4o-text-usage' })).stopReason).toBe('end_turn');
    expect((await jsonTurn(id, { messages: [user(`${id} more`)], model: 'openai:replay/openai/gpt-4o-text-usage' })).stopReason).toBe('end_turn');
    const next = await jsonTurn(id, { messages: [user(`${id} and now?`)], model: 'openai:script/echo' });
    expect(next.stopReason).toBe('end_turn');
    expect(next.compacted).toEqual([expect.objectContaining({ messagesSummarized: 2, reason })]);
    const summaries = (await sentWith(id)).filter((sent) => sent.model === 'script/echo' && isSummaryCall(sent));
    expect(summaries.map((body) => body.promptTokens > WINDOW)).toEqual(overflowed);
    expect((await jsonTurn(id, { messages: [user(`${id} again`)], model: 'openai:script/echo' })).stopReason).toBe('end_turn');
  });

  it.each([
    ['an error answer', 'script/llamacpp'],
    ['the one event of a stream answered 200', 'script/llamacpp-stream'],
  ])('learns the window a server names in its overflow, as %s (a local llama.cpp started with a small context, unknown to the deployment): one overflow, then every prompt within it', async (_as, model) => {
    const id = newSessionId('learnt-window');
    for (let index = 0; index < 24; index++) {
      const body = await jsonTurn(id, { messages: [user(`${id} ${index} ${'words '.repeat(60)}`)], model: `openai:${model}` });
      expect(body.stopReason).toBe('end_turn');
    }
    const sent = (await sentWith(id)).filter((body) => body.model === model);
    // The assumed window (32,000 tokens) let the prompt pass 2,000 once; the server's refusal named its
    // window, and from then on the session compacts within it.
    expect(sent.filter((body) => body.promptTokens > 2000)).toHaveLength(1);
    expect(sent.filter(isSummaryCall).length).toBeGreaterThan(1);
  });

  it('stores a huge tool result whole and sends it to the model shortened', async () => {
    const id = newSessionId('huge');
    const tools = [{ name: 'fetch_page' }];
    const first = await jsonTurn(id, { messages: [user('call fetch_page {}')], tools, model: 'demo:demo' });
    const callId = first.messages[0].content.find((b: any) => b.type === 'tool_use').toolCallId;
    const page = `${'HEAD '.repeat(200)}${'x'.repeat(100_000)}${' TAIL'.repeat(200)}`;
    const second = await jsonTurn(id, { messages: [{ role: 'tool', toolCallId: callId, content: page }, user(`${id} summarise it`)], tools, model: 'openai:script/echo' });
    expect(second.stopReason).toBe('end_turn');
    const stored = await history(id);
    expect(stored[2].content).toBe(page);
    const [sent] = await sentWith(id);
    const toolMessage = sent.messages.find((m: any) => m.role === 'tool');
    expect(toolMessage.content.length).toBeLessThan(2200);
    expect(toolMessage.content.startsWith('HEAD HEAD')).toBe(true);
    expect(toolMessage.content.endsWith('TAIL TAIL')).toBe(true);
    expect(toolMessage.content).toMatch(/characters of this tool result were cut here/);
  });

  it('compacts on the demo model too, with the compaction told on turn_stop', async () => {
    const id = newSessionId('demo-small');
    let told: any[] = [];
    for (let index = 0; index < 40 && told.length === 0; index++) {
      const result = await turn(id, { messages: [user(`message ${index}: ${'lorem ipsum '.repeat(15)}`)], model: 'demo:small', stream: 'delta' });
      if (result.mode === 'none') throw new Error('expected a stream');
      told = result.events.at(-1)!.data.compacted ?? [];
    }
    expect(told).toEqual([expect.objectContaining({ reason: 'threshold', messagesSummarized: expect.any(Number) })]);
    expect(told[0].tokensAfter).toBeLessThan(told[0].tokensBefore);
    const marker = (await history(id)).find((m) => m.role === 'compaction');
    expect(marker.summary).toMatch(/^The demo model's summary of \d+ messages/);
  });
});
