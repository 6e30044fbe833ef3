/**
 * `POST /ag-ui` (docs/pi-and-agui.md) against the real Worker and Durable Object: every event checked
 * with `@ag-ui/core`'s own schemas and `@ag-ui/client`'s ordering rules (`verifyEvents`); the thread
 * as the session; only unseen messages taken; interrupts for untrusted tools answered by `resume`;
 * client tools left pending and answered by tool messages; the cancel of a run; every bad input a
 * 4xx with the session unchanged. The real `HttpAgent` drives it in `test/clients/`.
 */
import { verifyEvents } from '@ag-ui/client';
import { EventSchemas } from '@ag-ui/core/schemas';
import { from, lastValueFrom, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { fetchWorker, history, newSessionId, postTurn, readSse, session, user, waitIdle, type WireEvent } from '../helpers/api';

type Message = Record<string, unknown> & { id: string; role: string };

function run(threadId: string, messages: Message[], extra: Record<string, unknown> = {}): Promise<Response> {
  return fetchWorker('/ag-ui', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ threadId, runId: `run-${crypto.randomUUID()}`, messages, tools: [], context: [], state: {}, forwardedProps: {}, ...extra }),
  });
}

/** A run's events, each valid under AG-UI's schema, in an order AG-UI's own verifier accepts. */
async function events(response: Response): Promise<any[]> {
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const wire: WireEvent[] = await readSse(response);
  const parsed = wire.map((event) => {
    expect(event.event).toBe(event.data.type);
    const result = EventSchemas.safeParse(event.data);
    if (!result.success) throw new Error(`${event.data.type} is not valid AG-UI: ${result.error.message}`);
    // Nothing the schema does not know: the client would strip it with a warning.
    expect(result.data).toEqual(event.data);
    return event.data;
  });
  await lastValueFrom(from(parsed as never[]).pipe(verifyEvents(false), toArray()));
  expect(parsed[0]!.type).toBe('RUN_STARTED');
  expect(['RUN_FINISHED', 'RUN_ERROR']).toContain(parsed.at(-1)!.type);
  return parsed;
}

const userMessage = (text: string): Message => ({ id: `u-${crypto.randomUUID()}`, role: 'user', content: text });
const of = (all: any[], type: string) => all.filter((event) => event.type === type);

/** What the client would hold after a run: the assistant message and tool results, by the events. */
function conversationAfter(messages: Message[], all: any[]): Message[] {
  const out = [...messages];
  for (const event of all) {
    if (event.type === 'TEXT_MESSAGE_START' && !out.some((m) => m.id === event.messageId)) out.push({ id: event.messageId, role: 'assistant', content: '' });
    if (event.type === 'TOOL_CALL_RESULT') out.push({ id: event.messageId, role: 'tool', toolCallId: event.toolCallId, content: event.content });
  }
  return out;
}

describe('POST /ag-ui', () => {
  it('runs a thread as a session: RUN_STARTED echoes the ids, reasoning and text stream, RUN_FINISHED has usage', async () => {
    const threadId = newSessionId('agui');
    const first = userMessage('hello');
    const response = await fetchWorker('/ag-ui', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ threadId, runId: 'run-1', messages: [first], tools: [], context: [] }),
    });
    const all = await events(response);
    expect(all[0]).toEqual({ type: 'RUN_STARTED', threadId, runId: 'run-1' });
    expect(all.map((e) => e.type).filter((type, index, types) => type !== types[index - 1])).toEqual([
      'RUN_STARTED',
      'REASONING_START',
      'REASONING_MESSAGE_START',
      'REASONING_MESSAGE_CONTENT',
      'REASONING_MESSAGE_END',
      'REASONING_END',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'RUN_FINISHED',
    ]);
    expect(of(all, 'REASONING_MESSAGE_START')[0].role).toBe('reasoning');
    const finished = all.at(-1);
    expect(finished).toMatchObject({ threadId, runId: 'run-1', outcome: { type: 'success' }, result: { stopReason: 'end_turn' } });
    expect(finished.usage).toEqual([
      { provider: 'demo', model: 'demo', inputTokens: expect.any(Number), outputTokens: expect.any(Number), totalTokens: expect.any(Number), reasoningTokens: 0, cachedInputTokens: 0, cacheWriteInputTokens: 0 },
    ]);
    // The thread is the session, seen through the other doors.
    expect((await session(threadId)).body).toMatchObject({ sessionId: threadId, messageCount: 2 });

    // HttpAgent sends the whole conversation again: only the new user message is taken.
    const second = userMessage('calculate 2+3');
    const conversation = [...conversationAfter([first], all), second];
    const next = await events(await run(threadId, conversation));
    expect(of(next, 'TOOL_CALL_RESULT').map((e) => e.content)).toEqual(['5']);
    const stored = await history(threadId);
    expect(stored.filter((m) => m.role === 'user').map((m) => m.content)).toEqual(['hello', 'calculate 2+3']);
  });

  it('puts calls under their assistant message and gives server results as TOOL_CALL_RESULT', async () => {
    const all = await events(await run(newSessionId('agui'), [userMessage('calculate 6*7; what time is it in UTC')]));
    const starts = of(all, 'TOOL_CALL_START');
    expect(starts.map((s) => s.toolCallName)).toEqual(['calculator', 'current_time']);
    const textId = of(all, 'TEXT_MESSAGE_START')[0].messageId;
    for (const start of starts) expect(start.parentMessageId).toBe(textId);
    const args = of(all, 'TOOL_CALL_ARGS').filter((e) => e.toolCallId === starts[0].toolCallId).map((e) => e.delta).join('');
    expect(JSON.parse(args)).toEqual({ expression: '6*7' });
    const results = of(all, 'TOOL_CALL_RESULT');
    expect(results.map((r) => r.toolCallId)).toEqual(expect.arrayContaining(starts.map((s) => s.toolCallId)));
    expect(results.find((r) => r.toolCallId === starts[0].toolCallId)).toEqual({ type: 'TOOL_CALL_RESULT', messageId: `tool-${starts[0].toolCallId}`, toolCallId: starts[0].toolCallId, content: '42', role: 'tool' });
    expect(all.at(-1).outcome).toEqual({ type: 'success' });
  });

  it('ends with an interrupt per untrusted call, and resumes on the next run’s answers', async () => {
    const threadId = newSessionId('agui');
    const ask = userMessage('remember buy milk; remember buy eggs');
    const asked = await events(await run(threadId, [ask]));
    const finished = asked.at(-1);
    expect(finished.outcome.type).toBe('interrupt');
    const calls = of(asked, 'TOOL_CALL_START').map((e) => e.toolCallId);
    expect(finished.outcome.interrupts).toEqual(
      calls.map((id: string, index: number) => ({
        id,
        reason: 'tool_permission',
        message: expect.stringContaining('memory_save'),
        toolCallId: id,
        responseSchema: { type: 'object', properties: { approved: { type: 'boolean' }, reason: { type: 'string' } }, required: ['approved'] },
        metadata: { toolName: 'memory_save', input: { text: index === 0 ? 'buy milk' : 'buy eggs' } },
      })),
    );
    expect(of(asked, 'TOOL_CALL_RESULT')).toEqual([]);
    expect((await session(threadId)).body.pendingToolCalls.map((c: any) => c.toolCallId)).toEqual(calls);

    const resumed = await events(
      await run(threadId, conversationAfter([ask], asked), {
        resume: [
          { interruptId: calls[0], status: 'resolved', payload: { approved: true } },
          { interruptId: calls[1], status: 'cancelled' },
        ],
      }),
    );
    // Each result as it is ready: the denial at once, the granted call once it ran.
    const results = new Map(of(resumed, 'TOOL_CALL_RESULT').map((r) => [r.toolCallId, r.content]));
    expect([...results.keys()].sort()).toEqual([...calls].sort());
    expect(results.get(calls[0])).toMatch(/^Saved note/);
    expect(results.get(calls[1])).toMatch(/denied/i);
    expect(resumed.at(-1).outcome).toEqual({ type: 'success' });

    // A denial with a reason, through a resolved interrupt.
    const again = await events(await run(threadId, [userMessage('remember the code')]));
    const id = again.at(-1).outcome.interrupts[0].id;
    const denied = await events(await run(threadId, [], { resume: [{ interruptId: id, status: 'resolved', payload: { approved: false, reason: 'not now' } }] }));
    expect(of(denied, 'TOOL_CALL_RESULT')[0].content).toContain('not now');
  });

  it('leaves client tools pending in a successful run, and goes on when a tool message answers them', async () => {
    const threadId = newSessionId('agui');
    const tools = [{ name: 'get_location', description: 'Where the user is.', parameters: { type: 'object', properties: {} } }];
    const ask = userMessage('call get_location {}');
    const asked = await events(await run(threadId, [ask], { tools }));
    const call = of(asked, 'TOOL_CALL_START')[0];
    expect(call.toolCallName).toBe('get_location');
    expect(asked.at(-1).outcome).toEqual({ type: 'success', pendingToolCallIds: [call.toolCallId] });

    const answer: Message = { id: `t-${crypto.randomUUID()}`, role: 'tool', toolCallId: call.toolCallId, content: 'Lisbon' };
    const answered = await events(await run(threadId, [...conversationAfter([ask], asked), answer], { tools }));
    const text = of(answered, 'TEXT_MESSAGE_CONTENT').map((e) => e.delta).join('');
    expect(text).toContain('Lisbon');
    expect(answered.at(-1).outcome).toEqual({ type: 'success' });
    const stored = await history(threadId);
    expect(stored.filter((m) => m.role === 'tool')).toEqual([{ role: 'tool', toolCallId: call.toolCallId, content: 'Lisbon' }]);
  });

  it('a response with both kinds: the interrupt names the untrusted call; the client’s is answered in the run that resumes', async () => {
    const threadId = newSessionId('agui');
    const tools = [{ name: 'get_location', description: 'Where the user is.', parameters: { type: 'object', properties: {} } }];
    const ask = userMessage('remember buy milk; call get_location {}');
    const asked = await events(await run(threadId, [ask], { tools }));
    const [save, locate] = of(asked, 'TOOL_CALL_START');
    expect(asked.at(-1).outcome.type).toBe('interrupt');
    expect(asked.at(-1).outcome.interrupts.map((i: any) => i.id)).toEqual([save.toolCallId]);

    const answer: Message = { id: `t-${crypto.randomUUID()}`, role: 'tool', toolCallId: locate.toolCallId, content: 'Porto' };
    const resumed = await events(
      await run(threadId, [...conversationAfter([ask], asked), answer], { tools, resume: [{ interruptId: save.toolCallId, status: 'resolved', payload: { approved: true } }] }),
    );
    expect(of(resumed, 'TOOL_CALL_RESULT').map((r) => r.toolCallId)).toEqual([save.toolCallId]);
    expect(of(resumed, 'TEXT_MESSAGE_CONTENT').map((e) => e.delta).join('')).toContain('Porto');
  });

  it('tells a running tool’s progress as CUSTOM task_progress', async () => {
    const all = await events(await run(newSessionId('agui'), [userMessage('count to 2')]));
    expect(of(all, 'CUSTOM').map((e) => [e.name, e.value.progress])).toEqual([
      ['task_progress', 50],
      ['task_progress', 100],
    ]);
  });

  it('ends a failed turn with RUN_ERROR', async () => {
    const all = await events(await run(newSessionId('agui'), [userMessage('demo:error')]));
    expect(all.at(-1)).toEqual({ type: 'RUN_ERROR', message: expect.any(String), code: expect.any(String) });
  });

  it('answers the same messages again after RUN_ERROR: a client’s retry runs the unanswered message once more', async () => {
    const threadId = newSessionId('agui');
    const messages = [userMessage('hello')];
    const failed = await events(await run(threadId, messages, { forwardedProps: { model: 'openai:status/500' } }));
    expect(failed.at(-1)!.type).toBe('RUN_ERROR');
    const retried = await events(await run(threadId, messages, { forwardedProps: { model: 'openai:replay/openai/gpt-4o-text-usage' } }));
    expect(retried.at(-1)!.type).toBe('RUN_FINISHED');
    expect(of(retried, 'TEXT_MESSAGE_CONTENT').length).toBeGreaterThan(0);
    // One user message, now answered: the retry stored none of its own.
    expect((await history(threadId)).map((m: any) => m.role)).toEqual(['user', 'assistant']);
    // Answered, the same messages bring nothing to run.
    const again = await run(threadId, conversationAfter(messages, retried));
    expect(again.status).toBe(400);
    expect(((await again.json()) as any).error.code).toBe('nothing_to_run');
  });

  it('cancels the turn when the client goes away', async () => {
    const threadId = newSessionId('agui');
    const response = await run(threadId, [userMessage('tell me a story')], { forwardedProps: { model: 'openai:script/slow' } });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    await reader.read();
    await reader.cancel();
    const idle = await waitIdle(threadId);
    expect(idle.lastTurn).toMatchObject({ status: 'cancelled' });
  });

  it('continues a thread on the turns API and back: one history', async () => {
    const threadId = newSessionId('agui');
    const first = userMessage('hello');
    const one = await events(await run(threadId, [first]));
    const viaTurns = await postTurn(threadId, { messages: [user('calculate 1+1')] });
    expect(viaTurns.status).toBe(200);
    await viaTurns.json();
    const back = await events(await run(threadId, [...conversationAfter([first], one), userMessage('list notes')]));
    expect(of(back, 'TOOL_CALL_START').map((e) => e.toolCallName)).toEqual(['memory_list']);
    const stored = await history(threadId);
    expect(stored.filter((m) => m.role === 'user').map((m) => m.content)).toEqual(['hello', 'calculate 1+1', 'list notes']);
  });

  describe('refuses a bad run with a 4xx and leaves the session as it was', () => {
    const cases: [string, (threadId: string, pendingId: string) => RequestInit, number, string][] = [
      ['no threadId', () => body({ runId: 'r', messages: [] }), 400, 'invalid_request'],
      ['a thread id that is not a session id', () => body({ threadId: 'a b', runId: 'r', messages: [] }), 400, 'invalid_request'],
      ['a message of an unknown role', (t) => body({ threadId: t, runId: 'r', messages: [{ id: 'x', role: 'robot', content: 'x' }] }), 400, 'invalid_request'],
      ['an audio part', (t) => body({ threadId: t, runId: 'r', messages: [{ id: 'x', role: 'user', content: [{ type: 'audio', source: { type: 'url', value: 'https://a/b' } }] }] }), 400, 'invalid_request'],
      ['nothing new', (t) => body({ threadId: t, runId: 'r', messages: [] }), 400, 'nothing_to_run'],
      ['a resume without approved', (t, id) => body({ threadId: t, runId: 'r', messages: [], resume: [{ interruptId: id, status: 'resolved', payload: {} }] }), 400, 'invalid_resume'],
      ['a resume of an unknown interrupt', (t) => body({ threadId: t, runId: 'r', messages: [], resume: [{ interruptId: 'nope', status: 'cancelled' }] }), 400, 'unknown_tool_call'],
      ['a new message while a call waits', (t) => body({ threadId: t, runId: 'r', messages: [{ id: 'n1', role: 'user', content: 'hi' }] }), 409, 'pending_tool_calls'],
      ['a model not offered', (t, id) => body({ threadId: t, runId: 'r', messages: [], resume: [{ interruptId: id, status: 'cancelled' }], forwardedProps: { model: 'openai:gpt-9' } }), 400, 'model_not_allowed'],
      ['a bad tool name', (t, id) => body({ threadId: t, runId: 'r', messages: [], tools: [{ name: 'a b', description: '' }], resume: [{ interruptId: id, status: 'cancelled' }] }), 400, 'invalid_request'],
      ['a body that is not JSON', () => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' }), 400, 'invalid_json'],
      ['another method', () => ({ method: 'GET' }), 405, 'method_not_allowed'],
    ];
    it.each(cases)('%s', async (_name, init, status, code) => {
      const threadId = newSessionId('agui-bad');
      const asked = await events(await run(threadId, [userMessage('remember milk')]));
      const pendingId = asked.at(-1).outcome.interrupts[0].id;
      const before = { history: await history(threadId), session: (await session(threadId)).body };
      const response = await fetchWorker('/ag-ui', init(threadId, pendingId));
      expect(response.status).toBe(status);
      expect(((await response.json()) as any).error.code).toBe(code);
      expect(await history(threadId)).toEqual(before.history);
      expect((await session(threadId)).body).toEqual(before.session);
    });
  });
});

function body(value: unknown): RequestInit {
  return { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(value) };
}
