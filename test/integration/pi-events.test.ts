/**
 * `stream: "pi"` (docs/pi-and-agui.md) on the demo model: the event sequence of a plain
 * answer, of parallel tool calls, of calls that wait for the client or the user, of a refusal and an
 * error; the stop reasons; resuming after a drop. The compile-time check that these events are pi's
 * own types is in `pi-types.test.ts`.
 */
import { describe, expect, it } from 'vitest';
import { fetchWorker, newSessionId, postTurn, readSse, user, type WireEvent } from '../helpers/api';

async function piTurn(sessionId: string, messages: unknown[], extra: Record<string, unknown> = {}): Promise<WireEvent[]> {
  const response = await postTurn(sessionId, { messages, stream: 'pi', ...extra });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const events = await readSse(response);
  // Every SSE event is named for its pi type; the frame is always well formed.
  for (const event of events) expect(event.event).toBe(event.data.type);
  expect(events[0]?.event).toBe('agent_start');
  expect(events.at(-1)?.event).toBe('agent_end');
  checkNesting(events);
  return events;
}

/** turn_start/turn_end and message_start/message_end alternate and nest as pi's loop makes them. */
function checkNesting(events: WireEvent[]): void {
  let turn = false;
  let message = false;
  for (const { event } of events) {
    if (event === 'turn_start') (expect(turn).toBe(false), (turn = true));
    if (event === 'turn_end') (expect(turn).toBe(true), expect(message).toBe(false), (turn = false));
    if (event === 'message_start') (expect(turn).toBe(true), expect(message).toBe(false), (message = true));
    if (event === 'message_update') expect(message).toBe(true);
    if (event === 'message_end') (expect(message).toBe(true), (message = false));
    if (event === 'agent_end') expect(turn).toBe(false);
  }
}

/** The event names, with the message role or update type, for compact sequence checks. */
const shape = (events: WireEvent[]) =>
  events.map(({ event, data }) =>
    event === 'message_update'
      ? `update:${data.assistantMessageEvent.type}`
      : event === 'message_start' || event === 'message_end'
        ? `${event}:${data.message.role}`
        : event,
  );
const withoutUpdates = (events: WireEvent[]) => shape(events).filter((name) => !name.startsWith('update:'));
/** A run of one model call that ends the run (an answer, a failure, calls that wait), updates left out. */
const ONE_MODEL_CALL = ['agent_start', 'turn_start', 'message_start:user', 'message_end:user', 'message_start:assistant', 'message_end:assistant', 'turn_end', 'agent_end'];
const squeeze = (names: string[]) => names.filter((name, index) => name !== names[index - 1] || !name.endsWith('_delta'));

describe('stream: "pi"', () => {
  it('tells a plain answer as one turn: the prompt, the streamed assistant message, agent_end with both', async () => {
    const sessionId = newSessionId('pi');
    const events = await piTurn(sessionId, [user('hello there')]);
    expect(squeeze(shape(events))).toEqual([
      'agent_start',
      'turn_start',
      'message_start:user',
      'message_end:user',
      'message_start:assistant',
      'update:thinking_start',
      'update:thinking_delta',
      'update:thinking_end',
      'update:text_start',
      'update:text_delta',
      'update:text_end',
      'message_end:assistant',
      'turn_end',
      'agent_end',
    ]);
    const userMessage = events[2]!.data.message;
    expect(userMessage).toEqual({ role: 'user', content: 'hello there', timestamp: expect.any(Number) });
    const end = events.find((e) => e.event === 'message_end' && e.data.message.role === 'assistant')!.data.message;
    expect(end).toMatchObject({ role: 'assistant', api: 'demo', provider: 'demo', model: 'demo', stopReason: 'stop' });
    expect(end.content.map((block: any) => block.type)).toEqual(['thinking', 'text']);
    expect(end.usage).toEqual({
      input: expect.any(Number),
      output: expect.any(Number),
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: end.usage.input + end.usage.output,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    });
    // The deltas, by contentIndex, add up to the blocks of message_end.
    const deltas = events.filter((e) => e.data.assistantMessageEvent?.type === 'text_delta');
    expect(deltas.map((e) => e.data.assistantMessageEvent.delta).join('')).toBe(end.content[1].text);
    expect(new Set(deltas.map((e) => e.data.assistantMessageEvent.contentIndex))).toEqual(new Set([1]));
    const textEnd = events.find((e) => e.data.assistantMessageEvent?.type === 'text_end')!.data.assistantMessageEvent;
    expect(textEnd.content).toBe(end.content[1].text);
    // Updates carry the message header, not the content so far (docs/decisions.md 19).
    expect(deltas[0]!.data.message).toEqual({ ...end, content: [], usage: expect.any(Object), stopReason: 'stop' });
    expect(deltas[0]!.data.assistantMessageEvent.partial).toEqual(deltas[0]!.data.message);
    const turnEnd = events.find((e) => e.event === 'turn_end')!.data;
    expect(turnEnd).toEqual({ type: 'turn_end', message: end, toolResults: [] });
    expect(events.at(-1)!.data.messages).toEqual([userMessage, end]);
  });

  it('runs parallel calls as pi does: every execution starts before any ends, results in call order', async () => {
    const sessionId = newSessionId('pi');
    const events = await piTurn(sessionId, [user('calculate 6*7; what time is it in UTC; calculate 1+1')]);
    const names = squeeze(shape(events));
    const firstEnd = names.indexOf('message_end:assistant');
    const execStarts = names.flatMap((name, index) => (name === 'tool_execution_start' ? [index] : []));
    const execEnds = names.flatMap((name, index) => (name === 'tool_execution_end' ? [index] : []));
    expect(execStarts).toHaveLength(3);
    expect(execEnds).toHaveLength(3);
    expect(Math.max(...execStarts)).toBeLessThan(Math.min(...execEnds));
    expect(firstEnd).toBeLessThan(execStarts[0]!);

    const callMessage = events.find((e) => e.event === 'message_end' && e.data.message.role === 'assistant')!.data.message;
    expect(callMessage.stopReason).toBe('toolUse');
    const calls = callMessage.content.filter((block: any) => block.type === 'toolCall');
    expect(calls.map((call: any) => call.name)).toEqual(['calculator', 'current_time', 'calculator']);
    expect(calls[0]).toEqual({ type: 'toolCall', id: expect.any(String), name: 'calculator', arguments: { expression: '6*7' } });
    // toolcall_end carries each call whole, by its index in the message.
    const toolcallEnds = events.filter((e) => e.data.assistantMessageEvent?.type === 'toolcall_end').map((e) => e.data.assistantMessageEvent);
    expect(toolcallEnds.map((e) => e.toolCall)).toEqual(calls);
    expect(toolcallEnds.map((e) => callMessage.content[e.contentIndex])).toEqual(calls);

    const starts = events.filter((e) => e.event === 'tool_execution_start').map((e) => e.data);
    expect(starts.map((s) => s.toolCallId).sort()).toEqual(calls.map((c: any) => c.id).sort());
    expect(starts.find((s) => s.toolCallId === calls[0].id)).toEqual({ type: 'tool_execution_start', toolCallId: calls[0].id, toolName: 'calculator', args: { expression: '6*7' } });
    const ends = events.filter((e) => e.event === 'tool_execution_end').map((e) => e.data);
    expect(ends.find((e) => e.toolCallId === calls[0].id)).toEqual({
      type: 'tool_execution_end',
      toolCallId: calls[0].id,
      toolName: 'calculator',
      result: { content: [{ type: 'text', text: '42' }], details: {} },
      isError: false,
    });

    // The first turn: its results as messages in call order, then turn_end listing them in that order.
    const turnEnds = events.filter((e) => e.event === 'turn_end').map((e) => e.data);
    expect(turnEnds).toHaveLength(2);
    expect(turnEnds[0]!.message).toEqual(callMessage);
    expect(turnEnds[0]!.toolResults.map((r: any) => r.toolCallId)).toEqual(calls.map((c: any) => c.id));
    expect(turnEnds[0]!.toolResults[0]).toEqual({
      role: 'toolResult',
      toolCallId: calls[0].id,
      toolName: 'calculator',
      content: [{ type: 'text', text: '42' }],
      isError: false,
      timestamp: expect.any(Number),
    });
    const resultMessages = events.filter((e) => e.event === 'message_end' && e.data.message.role === 'toolResult').map((e) => e.data.message);
    expect(resultMessages).toEqual(turnEnds[0]!.toolResults);
    expect(names.slice(names.lastIndexOf('tool_execution_end') + 1, names.indexOf('turn_end'))).toEqual([
      'message_start:toolResult',
      'message_end:toolResult',
      'message_start:toolResult',
      'message_end:toolResult',
      'message_start:toolResult',
      'message_end:toolResult',
    ]);
    // The second turn answers with text and stops.
    expect(names.slice(names.indexOf('turn_end') + 1, names.indexOf('turn_end') + 3)).toEqual(['turn_start', 'message_start:assistant']);
    expect(turnEnds[1]!.message.stopReason).toBe('stop');
    expect(turnEnds[1]!.toolResults).toEqual([]);
    const all = events.at(-1)!.data.messages;
    expect(all.map((m: any) => m.role)).toEqual(['user', 'assistant', 'toolResult', 'toolResult', 'toolResult', 'assistant']);
  });

  it('ends a turn whose calls wait (the user, the client) without executing them, then resumes them in the next', async () => {
    const sessionId = newSessionId('pi');
    const tools = [{ name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } }];
    const waiting = await piTurn(sessionId, [user('remember buy milk; call lookup {"q":"milk"}')], { tools });
    expect(withoutUpdates(waiting)).toEqual(ONE_MODEL_CALL);
    const turnEnd = waiting.find((e) => e.event === 'turn_end')!.data;
    expect(turnEnd.message.stopReason).toBe('toolUse');
    expect(turnEnd.toolResults).toEqual([]);
    const [save, lookup] = turnEnd.message.content.filter((block: any) => block.type === 'toolCall');
    expect([save.name, lookup.name]).toEqual(['memory_save', 'lookup']);

    const resumed = await piTurn(sessionId, [
      { role: 'tool_permission', toolCallId: save.id, granted: true },
      { role: 'tool', toolCallId: lookup.id, content: 'milk is in aisle 4' },
    ]);
    const names = squeeze(shape(resumed));
    expect(names.slice(0, 8)).toEqual([
      'agent_start',
      'turn_start',
      'tool_execution_start',
      'tool_execution_end',
      'message_start:toolResult',
      'message_end:toolResult',
      'message_start:toolResult',
      'message_end:toolResult',
    ]);
    const results = resumed.filter((e) => e.event === 'message_end' && e.data.message.role === 'toolResult').map((e) => e.data.message);
    // The granted call ran here; the client's answer has no execution of ours, only its message.
    expect(results.map((r) => [r.toolCallId, r.toolName, r.isError])).toEqual([
      [save.id, 'memory_save', false],
      [lookup.id, 'lookup', false],
    ]);
    expect(results[1].content).toEqual([{ type: 'text', text: 'milk is in aisle 4' }]);
    expect(resumed.filter((e) => e.event === 'tool_execution_start').map((e) => e.data.toolCallId)).toEqual([save.id]);
    const ends = resumed.filter((e) => e.event === 'turn_end').map((e) => e.data);
    expect(ends).toHaveLength(1);
    expect(ends[0]!.message.stopReason).toBe('stop');
    expect(ends[0]!.toolResults).toEqual([]);
  });

  it('tells a denial as an execution that failed', async () => {
    const sessionId = newSessionId('pi');
    const waiting = await piTurn(sessionId, [user('remember the code is 1234')]);
    const call = waiting.find((e) => e.event === 'turn_end')!.data.message.content.find((block: any) => block.type === 'toolCall');
    const resumed = await piTurn(sessionId, [{ role: 'tool_permission', toolCallId: call.id, granted: false, reason: 'not that' }]);
    const start = resumed.find((e) => e.event === 'tool_execution_start')!.data;
    const end = resumed.find((e) => e.event === 'tool_execution_end')!.data;
    expect(start).toMatchObject({ toolCallId: call.id, toolName: 'memory_save' });
    expect(end).toMatchObject({ toolCallId: call.id, toolName: 'memory_save', isError: true });
    expect(end.result.content[0].text).toContain('not that');
  });

  it('tells a running tool’s progress as tool_execution_update', async () => {
    const events = await piTurn(newSessionId('pi'), [user('count to 2')]);
    const updates = events.filter((e) => e.event === 'tool_execution_update').map((e) => e.data);
    expect(updates).toEqual([1, 2].map((step) => ({
      type: 'tool_execution_update',
      toolCallId: expect.any(String),
      toolName: 'count_to',
      args: { to: 2 },
      partialResult: { content: [{ type: 'text', text: `Counted ${step} of 2.` }], details: { progress: step * 50 } },
    })));
    const names = events.map((e) => e.event);
    expect(names.indexOf('tool_execution_start')).toBeLessThan(names.indexOf('tool_execution_update'));
    expect(names.lastIndexOf('tool_execution_update')).toBeLessThan(names.indexOf('tool_execution_end'));
  });

  it('maps each stop: a refusal and a failed call are errors with errorMessage', async () => {
    const refused = await piTurn(newSessionId('pi'), [user('demo:refuse')]);
    const refusal = refused.find((e) => e.event === 'turn_end')!.data.message;
    expect(refusal.stopReason).toBe('error');
    expect(refusal.errorMessage).toEqual(expect.any(String));
    expect(refusal.errorMessage.length).toBeGreaterThan(0);

    const failed = await piTurn(newSessionId('pi'), [user('demo:error')]);
    expect(withoutUpdates(failed)).toEqual(ONE_MODEL_CALL);
    const error = failed.find((e) => e.event === 'turn_end')!.data.message;
    // The failed call's streamed text is not kept (nor is it in the history): the message is empty.
    expect(error).toMatchObject({ role: 'assistant', stopReason: 'error', content: [] });
    expect(error.errorMessage).toEqual(expect.any(String));
    expect(failed.at(-1)!.data.messages.map((m: any) => m.role)).toEqual(['user', 'assistant']);
  });

  it('carries a recorded Anthropic stream: thinking with its signature, the provider and API named as pi names them', async () => {
    const events = await piTurn(newSessionId('pi'), [user('think first')], { model: 'anthropic:replay/anthropic/claude-sonnet-4-thinking-signature-text' });
    const end = events.find((e) => e.event === 'turn_end')!.data.message;
    expect(end).toMatchObject({ provider: 'anthropic', api: 'anthropic-messages', model: 'replay/anthropic/claude-sonnet-4-thinking-signature-text', stopReason: 'stop' });
    const thinking = end.content.find((block: any) => block.type === 'thinking');
    expect(thinking.thinkingSignature).toEqual(expect.any(String));
    expect(thinking.thinkingSignature.length).toBeGreaterThan(10);
    const thinkingEnd = events.find((e) => e.data.assistantMessageEvent?.type === 'thinking_end')!.data.assistantMessageEvent;
    expect(thinkingEnd.content).toBe(thinking.thinking);
  });

  it('counts cache reads beside the input, as pi does (ours counts them inside it)', async () => {
    const events = await piTurn(newSessionId('pi'), [user('hi')], { model: 'openai:replay/xai/grok-code-fast-reasoning-tool-call-cached' });
    const usage = events.find((e) => e.event === 'message_end' && e.data.message.role === 'assistant')!.data.message.usage;
    expect(usage.cacheRead).toBeGreaterThan(0);
    expect(usage.totalTokens).toBe(usage.input + usage.cacheRead + usage.cacheWrite + usage.output);
  });

  it('resumes after a drop in pi events, and any turn can be followed as pi events', async () => {
    const sessionId = newSessionId('pi');
    const events = await piTurn(sessionId, [user('calculate 2+2')]);
    const cut = events[6]!;
    const turnId = await lastTurnId(sessionId);
    const rest = await readSse(await fetchWorker(`/sessions/${sessionId}/turns/${turnId}/events`, { headers: { 'last-event-id': cut.id! } }));
    expect(rest.map((e) => e.data)).toEqual(events.slice(7).map((e) => e.data));
    expect(rest.map((e) => e.id)).toEqual(events.slice(7).map((e) => e.id));

    // A JSON turn, followed afterwards as pi events.
    const json = await postTurn(sessionId, { messages: [user('hello')] });
    const { turnId: jsonTurn } = (await json.json()) as { turnId: string };
    const followed = await readSse(await fetchWorker(`/sessions/${sessionId}/turns/${jsonTurn}/events?stream=pi`));
    expect(followed[0]?.event).toBe('agent_start');
    expect(followed.at(-1)?.event).toBe('agent_end');
  });

  it('refuses an unknown stream mode with a 400, and creates no session', async () => {
    const sessionId = newSessionId('pi');
    const response = await postTurn(sessionId, { messages: [user('hi')], stream: 'pie' });
    expect(response.status).toBe(400);
    expect(((await response.json()) as any).error.code).toBe('invalid_request');
    expect((await fetchWorker(`/sessions/${sessionId}`)).status).toBe(404);
  });

  it('refuses an unknown follow mode with a 400', async () => {
    const sessionId = newSessionId('pi');
    await piTurn(sessionId, [user('hello')]);
    const turnId = await lastTurnId(sessionId);
    const response = await fetchWorker(`/sessions/${sessionId}/turns/${turnId}/events?stream=pie`);
    expect(response.status).toBe(400);
    expect(((await response.json()) as any).error.code).toBe('invalid_query');
  });
});

async function lastTurnId(sessionId: string): Promise<string> {
  const response = await fetchWorker(`/sessions/${sessionId}`);
  return ((await response.json()) as any).lastTurn.turnId;
}
