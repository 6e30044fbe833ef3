/**
 * `POST /harness/chat` (docs/harness.md) against the real Worker and Durable Objects:
 * golden event sequences for a plain answer, a trusted tool, a confirmation granted (with edited
 * input) and denied, all denied, external execution, the iteration bound and a failure; every event
 * parsed with its strict schema (`src/protocol/harness-events.ts`); both response formats; every 400
 * of the protocol with the session unchanged; one session through both doors.
 */
import { env } from 'cloudflare:workers';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { afterAll, describe, expect, it } from 'vitest';
import { harnessEventSchemas, type HarnessEventType } from '../../src/protocol/harness-events';
import { callWorker, fetchWorker, history, newSessionId, postTurn, session, user } from '../helpers/api';
import { mint, SECRET } from '../helpers/tokens';
import { sentWith } from '../helpers/upstream-log';

type Event = Record<string, any> & { type: HarnessEventType };

function post(body: unknown, accept?: string): Promise<Response> {
  return fetchWorker('/harness/chat', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(accept ? { accept } : {}) },
    body: JSON.stringify(body),
  });
}

/** Every type any test of this file saw, from a real run: all 31 by the end (checked in afterAll). */
const seen = new Set<string>();
afterAll(() => {
  expect([...seen].sort()).toEqual(Object.keys(harnessEventSchemas).sort());
});

/** Every event strictly valid; ids unique. */
function checked(events: Event[]): Event[] {
  for (const event of events) {
    seen.add(event.type);
    const schema = harnessEventSchemas[event.type];
    expect(schema, `unknown type ${event.type}`).toBeDefined();
    const parsed = schema.safeParse(event);
    if (!parsed.success) throw new Error(`${event.type} does not match the protocol: ${parsed.error.message}\n${JSON.stringify(event)}`);
  }
  expect(new Set(events.map((event) => event.id)).size).toBe(events.length);
  expect(events[0]?.type).toBe('AGENT_START');
  expect(events.slice(-2).map((event) => event.type)).toEqual(['AGENT_RESULT', 'AGENT_END']);
  return events;
}

/** SSE: `data:` lines, no event names. */
async function chat(body: Record<string, unknown>): Promise<Event[]> {
  const response = await post(body, 'text/event-stream');
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const text = await response.text();
  expect(text).not.toMatch(/^event:/m);
  expect(text.startsWith('data:{')).toBe(true);
  const events: Event[] = [];
  const parser = new Response(text).body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  for await (const message of parser as unknown as AsyncIterable<{ event?: string; data: string }>) {
    expect(message.event).toBeUndefined();
    events.push(JSON.parse(message.data));
  }
  return checked(events);
}

/** The type sequence, runs of the same delta squeezed to one. */
const types = (events: Event[]) => events.map((event) => event.type).filter((type, index, all) => type !== all[index - 1] || !type.endsWith('_DELTA'));
/** What every demo model call streams: its thinking, then its text. */
const DEMO_BLOCKS = ['THINKING_BLOCK_START', 'THINKING_BLOCK_DELTA', 'THINKING_BLOCK_END', 'TEXT_BLOCK_START', 'TEXT_BLOCK_DELTA', 'TEXT_BLOCK_END'];
const of = (events: Event[], type: HarnessEventType) => events.filter((event) => event.type === type);

describe('POST /harness/chat', () => {
  it('tells a plain answer in the protocol’s order, with the common fields and AGENT_RESULT’s Msg', async () => {
    const sessionId = newSessionId('harness');
    const events = await chat({ sessionId, userId: 'local', input: 'hello there' });
    expect(types(events)).toEqual(['AGENT_START', 'MODEL_CALL_START', ...DEMO_BLOCKS, 'MODEL_CALL_END', 'AGENT_RESULT', 'AGENT_END']);
    const start = events[0]!;
    expect(start).toEqual({ type: 'AGENT_START', id: expect.stringMatching(/^[0-9a-f]{32}$/), createdAt: expect.stringMatching(/\.\d{6}Z$/), sessionId, replyId: expect.any(String), name: 'assistant', role: 'assistant' });
    // One replyId for the run; source and metadata left out when empty.
    expect(new Set(events.flatMap((event) => (event.replyId ? [event.replyId] : [])))).toEqual(new Set([start.replyId]));
    for (const event of events) expect('source' in event || 'metadata' in event).toBe(false);
    const text = of(events, 'TEXT_BLOCK_DELTA').map((event) => event.delta).join('');
    const result = events.at(-2)!.result;
    expect(result).toMatchObject({ name: 'assistant', role: 'ASSISTANT', metadata: { agentscope_generate_reason: 'MODEL_STOP' } });
    expect(result.content).toEqual([{ type: 'thinking', thinking: expect.any(String) }, { type: 'text', text }]);
    expect(result.timestamp).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}$/);
    const callEnd = of(events, 'MODEL_CALL_END')[0]!;
    expect(result.usage).toEqual({ ...callEnd.usage, time: expect.any(Number) });
    expect(callEnd.usage.totalTokens).toBe(callEnd.usage.inputTokens + callEnd.usage.outputTokens);
  });

  it('ignores fields the protocol does not name, as the protocol’s own server does', async () => {
    const events = await chat({ sessionId: newSessionId('harness'), userId: 'local', input: 'hello', stream: true, clientVersion: '1.2', chatModel: { name: 'demo:demo', topP: 0.9 } });
    expect(types(events).at(-1)).toBe('AGENT_END');
  });

  it('answers Accept: application/json (or none) with one JSON array of the same events', async () => {
    for (const accept of ['application/json', undefined]) {
      const response = await post({ sessionId: newSessionId('harness'), userId: 'local', input: 'hello there' }, accept);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(response.headers.get('cache-control')).toContain('no-transform');
      const events = checked((await response.json()) as Event[]);
      expect(types(events)[0]).toBe('AGENT_START');
      expect(types(events).at(-1)).toBe('AGENT_END');
    }
  });

  it('runs a trusted tool: its call streams, then TOOL_RESULT_START, the text, TOOL_RESULT_END success', async () => {
    const events = await chat({ sessionId: newSessionId('harness'), userId: 'local', input: 'calculate 6*7' });
    expect(types(events)).toEqual([
      'AGENT_START',
      'MODEL_CALL_START',
      ...DEMO_BLOCKS,
      'TOOL_CALL_START',
      'TOOL_CALL_DELTA',
      'TOOL_CALL_END',
      'MODEL_CALL_END',
      'TOOL_RESULT_START',
      'TOOL_RESULT_TEXT_DELTA',
      'TOOL_RESULT_END',
      'MODEL_CALL_START',
      ...DEMO_BLOCKS,
      'MODEL_CALL_END',
      'AGENT_RESULT',
      'AGENT_END',
    ]);
    const call = of(events, 'TOOL_CALL_START')[0]!;
    expect(call.toolCallName).toBe('calculator');
    expect(JSON.parse(of(events, 'TOOL_CALL_DELTA').map((event) => event.delta).join(''))).toEqual({ expression: '6*7' });
    expect(of(events, 'TOOL_RESULT_TEXT_DELTA')[0]).toMatchObject({ toolCallId: call.toolCallId, toolCallName: 'calculator', delta: '42' });
    expect(of(events, 'TOOL_RESULT_END')[0]).toMatchObject({ toolCallId: call.toolCallId, state: 'success' });
  });

  it('asks for confirmation, then runs the call with the input the user edited, echoed as USER_CONFIRM_RESULT', async () => {
    const sessionId = newSessionId('harness');
    const asked = await chat({ sessionId, userId: 'local', input: 'remember buy milk' });
    expect(types(asked).slice(-5)).toEqual(['MODEL_CALL_END', 'REQUIRE_USER_CONFIRM', 'REQUEST_STOP', 'AGENT_RESULT', 'AGENT_END']);
    const confirm = of(asked, 'REQUIRE_USER_CONFIRM')[0]!;
    expect(confirm.toolCalls).toEqual([{ id: expect.any(String), name: 'memory_save', input: { text: 'buy milk' }, content: null, metadata: {}, state: 'asking' }]);
    expect(of(asked, 'REQUEST_STOP')[0]).toMatchObject({ generateReason: 'PERMISSION_ASKING' });
    expect(asked.at(-2)!.result.metadata.agentscope_generate_reason).toBe('PERMISSION_ASKING');
    expect(of(asked, 'TOOL_RESULT_START')).toEqual([]);

    const edited = { ...confirm.toolCalls[0], input: { text: 'buy oat milk' } };
    const resumed = await chat({ sessionId, userId: 'local', confirmResults: [{ confirmed: true, toolCall: edited, rules: null }] });
    expect(types(resumed).slice(0, 5)).toEqual(['AGENT_START', 'USER_CONFIRM_RESULT', 'TOOL_RESULT_START', 'TOOL_RESULT_TEXT_DELTA', 'TOOL_RESULT_END']);
    expect(of(resumed, 'USER_CONFIRM_RESULT')[0]!.confirmResults).toEqual([{ confirmed: true, toolCall: edited, rules: null }]);
    expect(of(resumed, 'TOOL_RESULT_END')[0]).toMatchObject({ toolCallId: edited.id, state: 'success' });
    expect(of(resumed, 'ALL_TOOLS_DENIED')).toEqual([]);

    // The edited input is what ran.
    const notes = await chat({ sessionId, userId: 'local', input: 'list notes' });
    expect(of(notes, 'TOOL_RESULT_TEXT_DELTA')[0]!.delta).toContain('buy oat milk');
  });

  it('tells a denial: USER_CONFIRM_RESULT, ALL_TOOLS_DENIED when every call of the batch is denied, TOOL_RESULT_END denied', async () => {
    const sessionId = newSessionId('harness');
    const asked = await chat({ sessionId, userId: 'local', input: 'remember the code; remember the pin' });
    const calls = of(asked, 'REQUIRE_USER_CONFIRM')[0]!.toolCalls;
    expect(calls).toHaveLength(2);
    const denied = await chat({ sessionId, userId: 'local', confirmResults: calls.map((toolCall: Event) => ({ confirmed: false, toolCall, rules: null })) });
    expect(types(denied).slice(0, 4)).toEqual(['AGENT_START', 'USER_CONFIRM_RESULT', 'ALL_TOOLS_DENIED', 'TOOL_RESULT_START']);
    expect(of(denied, 'ALL_TOOLS_DENIED')[0]!.deniedToolCalls).toEqual(calls);
    expect(of(denied, 'TOOL_RESULT_END').map((event) => event.state)).toEqual(['denied', 'denied']);
    expect(of(denied, 'MODEL_CALL_START')).toHaveLength(1);

    // One granted, one denied: not all denied.
    const again = await chat({ sessionId, userId: 'local', input: 'remember a; remember b' });
    const [first, second] = of(again, 'REQUIRE_USER_CONFIRM')[0]!.toolCalls;
    const mixed = await chat({
      sessionId,
      userId: 'local',
      confirmResults: [
        { confirmed: true, toolCall: first, rules: null },
        { confirmed: false, toolCall: second, rules: null },
      ],
    });
    expect(of(mixed, 'ALL_TOOLS_DENIED')).toEqual([]);
    expect(of(mixed, 'TOOL_RESULT_END').map((event) => [event.toolCallId, event.state]).sort()).toEqual([
      [first.id, 'success'],
      [second.id, 'denied'],
    ].sort());
  });

  it('leaves a client tool to the caller (REQUIRE_EXTERNAL_EXECUTION), resumed by toolResults (EXTERNAL_EXECUTION_RESULT)', async () => {
    const sessionId = newSessionId('harness');
    const tools = [{ name: 'human_approval_flow', parameters: { type: 'object', properties: { title: { type: 'string' } } } }];
    const asked = await chat({ sessionId, userId: 'local', input: 'call human_approval_flow {"title":"ship 10086"}', tools });
    const external = of(asked, 'REQUIRE_EXTERNAL_EXECUTION')[0]!;
    expect(external.toolCalls).toEqual([{ id: expect.any(String), name: 'human_approval_flow', input: { title: 'ship 10086' }, content: null, metadata: {}, state: 'pending' }]);
    expect(of(asked, 'REQUEST_STOP')[0]).toMatchObject({ generateReason: 'TOOL_SUSPENDED' });
    const toolResults = [{ id: external.toolCalls[0].id, name: 'human_approval_flow', output: [{ type: 'text', text: 'approved by Zhang San' }], metadata: {}, state: 'success' }];
    const resumed = await chat({ sessionId, userId: 'local', toolResults, tools });
    expect(types(resumed).slice(0, 3)).toEqual(['AGENT_START', 'EXTERNAL_EXECUTION_RESULT', 'MODEL_CALL_START']);
    expect(of(resumed, 'EXTERNAL_EXECUTION_RESULT')[0]!.toolResults).toEqual(toolResults);
    expect(of(resumed, 'TEXT_BLOCK_DELTA').map((event) => event.delta).join('')).toContain('approved by Zhang San');
  });

  it('tells the iteration bound (EXCEED_MAX_ITERS) before the last call, whose result says MAX_ITERATIONS', async () => {
    const events = await chat({ sessionId: newSessionId('harness'), userId: 'local', input: 'demo:loop' });
    const exceed = of(events, 'EXCEED_MAX_ITERS')[0]!;
    expect(exceed).toMatchObject({ maxIters: 3, currentIter: 3 });
    const after = events.slice(events.indexOf(exceed));
    expect(types(after)[1]).toBe('MODEL_CALL_START');
    expect(of(after, 'TOOL_CALL_START')).toEqual([]);
    expect(events.at(-2)!.result.metadata.agentscope_generate_reason).toBe('MAX_ITERATIONS');
  });

  it('ends a failed run with REQUEST_STOP (INTERRUPTED), then AGENT_RESULT and AGENT_END', async () => {
    const events = await chat({ sessionId: newSessionId('harness'), userId: 'local', input: 'demo:error' });
    expect(types(events).slice(-3)).toEqual(['REQUEST_STOP', 'AGENT_RESULT', 'AGENT_END']);
    expect(of(events, 'REQUEST_STOP')[0]).toMatchObject({ generateReason: 'INTERRUPTED', reason: expect.stringContaining('demo:error') });
    expect(events.at(-2)!.result.metadata).toMatchObject({ agentscope_generate_reason: 'INTERRUPTED', error: { code: 'upstream_error' } });
  });

  it('honours chatModel: the name within MODELS (provider:model or the model’s own name), the temperature', async () => {
    const marker = `harness-${crypto.randomUUID()}`;
    const events = await chat({ sessionId: newSessionId('harness'), userId: 'local', input: marker, chatModel: { name: 'replay/openai/gpt-4o-text-usage', temperature: 0.3 } });
    expect(types(events).at(-1)).toBe('AGENT_END');
    const [sent] = await sentWith(marker);
    expect(sent).toMatchObject({ model: 'replay/openai/gpt-4o-text-usage', temperature: 0.3 });
    const refused = await post({ sessionId: newSessionId('harness'), userId: 'local', input: 'hi', chatModel: { name: 'gpt-9' } });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as any).error.code).toBe('model_not_allowed');
    // A name of megabytes is named by its start, not sent back.
    const huge = await post({ sessionId: newSessionId('harness'), userId: 'local', input: 'hi', chatModel: { name: 'm'.repeat(1_000_000) } });
    expect(huge.status).toBe(400);
    expect((await huge.text()).length).toBeLessThan(20_000); // the allowed models listed, twice, and the name by its start
  });

  it('keeps the rules a confirmation brings, and applies them to later calls through both doors', async () => {
    const sessionId = newSessionId('harness');
    const asked = await chat({ sessionId, userId: 'local', input: 'remember buy milk' });
    const call = of(asked, 'REQUIRE_USER_CONFIRM')[0]!.toolCalls[0];
    const allow = { tool_name: 'memory_save', rule_content: 'buy *', behavior: 'allow', source: 'userSettings' };
    const confirmed = await chat({ sessionId, userId: 'local', confirmResults: [{ confirmed: true, toolCall: call, rules: [allow] }] });
    expect(of(confirmed, 'USER_CONFIRM_RESULT')[0]!.confirmResults[0].rules).toEqual([allow]);

    // Allowed by the rule: no confirmation asked, here and on the turns API.
    const later = await chat({ sessionId, userId: 'local', input: 'remember buy eggs' });
    expect(of(later, 'REQUIRE_USER_CONFIRM')).toEqual([]);
    expect(of(later, 'TOOL_RESULT_END')[0]).toMatchObject({ toolCallName: 'memory_save', state: 'success' });
    const viaTurns = (await (await postTurn(sessionId, { messages: [user('remember buy bread')] })).json()) as any;
    expect(viaTurns.stopReason).toBe('end_turn');
    // Not matched by the rule: asked as before.
    const other = await chat({ sessionId, userId: 'local', input: 'remember the door code' });
    expect(of(other, 'REQUIRE_USER_CONFIRM')).toHaveLength(1);

    // A deny rule, sent with a turns API answer (`rule`), refuses later calls outright; ask makes a trusted tool ask.
    const pendingId = of(other, 'REQUIRE_USER_CONFIRM')[0]!.toolCalls[0].id;
    const denyRule = { tool_name: 'calculator', rule_content: '*', behavior: 'deny', source: 'session' };
    const answered = await postTurn(sessionId, { messages: [{ role: 'tool_permission', toolCallId: pendingId, granted: false, rule: denyRule }] });
    expect(answered.status).toBe(200);
    await answered.json();
    const refused = await chat({ sessionId, userId: 'local', input: 'calculate 1+1' });
    expect(of(refused, 'TOOL_RESULT_END')[0]).toMatchObject({ toolCallName: 'calculator', state: 'denied' });
    expect(of(refused, 'ALL_TOOLS_DENIED')[0]!.deniedToolCalls).toEqual([expect.objectContaining({ name: 'calculator', input: { expression: '1+1' } })]);
    expect(of(refused, 'REQUIRE_USER_CONFIRM')).toEqual([]);
    const pending = of(await chat({ sessionId, userId: 'local', input: 'remember the pin' }), 'REQUIRE_USER_CONFIRM')[0]!.toolCalls[0];
    const ask = { tool_name: 'current_time', rule_content: '*', behavior: 'ask', source: 'session' };
    await chat({ sessionId, userId: 'local', confirmResults: [{ confirmed: false, toolCall: pending, rules: [ask] }] });
    const askTime = await chat({ sessionId, userId: 'local', input: 'what time is it' });
    expect(of(askTime, 'REQUIRE_USER_CONFIRM')[0]!.toolCalls.map((c: Event) => c.name)).toEqual(['current_time']);
  });

  it('echoes a confirmation’s rules as they came: an empty list as an empty list, none as null', async () => {
    const sessionId = newSessionId('harness');
    const asked = await chat({ sessionId, userId: 'local', input: 'remember buy milk; remember buy tea' });
    const [first, second] = of(asked, 'REQUIRE_USER_CONFIRM')[0]!.toolCalls;
    const confirmed = await chat({ sessionId, userId: 'local', confirmResults: [{ confirmed: true, toolCall: first, rules: [] }, { confirmed: false, toolCall: second, rules: null }] });
    expect(of(confirmed, 'USER_CONFIRM_RESULT')[0]!.confirmResults.map((result: Event) => result.rules)).toEqual([[], null]);
  });

  it('refuses a rule that is not one, with the session unchanged', async () => {
    const sessionId = newSessionId('harness');
    const asked = await chat({ sessionId, userId: 'local', input: 'remember x' });
    const call = of(asked, 'REQUIRE_USER_CONFIRM')[0]!.toolCalls[0];
    const before = await history(sessionId);
    const response = await post({ sessionId, userId: 'local', confirmResults: [{ confirmed: true, toolCall: call, rules: [{ tool_name: 'memory_save', rule_content: '*', behavior: 'maybe', source: 'x' }] }] });
    expect(response.status).toBe(400);
    await response.body?.cancel();
    expect(await history(sessionId)).toEqual(before);
    const still = await chat({ sessionId, userId: 'local', confirmResults: [{ confirmed: false, toolCall: call, rules: null }] });
    expect(of(still, 'USER_CONFIRM_RESULT')).toHaveLength(1);
    const again = await chat({ sessionId, userId: 'local', input: 'remember y' });
    expect(of(again, 'REQUIRE_USER_CONFIRM')).toHaveLength(1);
  });

  it('shares the permission model with the turns API: tool_permission may carry edited input (granted only)', async () => {
    const sessionId = newSessionId('harness');
    const asked = (await (await postTurn(sessionId, { messages: [user('remember buy tea')] })).json()) as any;
    const callId = asked.messages[0].content.find((block: any) => block.type === 'tool_use').toolCallId;
    const refused = await postTurn(sessionId, { messages: [{ role: 'tool_permission', toolCallId: callId, granted: false, input: { text: 'x' } }] });
    expect(refused.status).toBe(400);
    await refused.body?.cancel();
    const granted = await postTurn(sessionId, { messages: [{ role: 'tool_permission', toolCallId: callId, granted: true, input: { text: 'buy green tea' } }] });
    expect(((await granted.json()) as any).stopReason).toBe('end_turn');
    const notes = await chat({ sessionId, userId: 'local', input: 'list notes' });
    expect(of(notes, 'TOOL_RESULT_TEXT_DELTA')[0]!.delta).toContain('buy green tea');
  });

  it('tells a long-running tool’s progress as CUSTOM task_progress, between its TOOL_RESULT_START and END', async () => {
    const events = await chat({ sessionId: newSessionId('harness'), userId: 'local', input: 'count to 3' });
    const names = types(events);
    const start = names.indexOf('TOOL_RESULT_START');
    expect(names.slice(start, start + 6)).toEqual(['TOOL_RESULT_START', 'CUSTOM', 'CUSTOM', 'CUSTOM', 'TOOL_RESULT_TEXT_DELTA', 'TOOL_RESULT_END']);
    const progress = of(events, 'CUSTOM');
    expect(progress.map((event) => event.name)).toEqual(['task_progress', 'task_progress', 'task_progress']);
    expect(progress.map((event) => event.value.progress)).toEqual([33, 67, 100]);
    expect(progress[2]!.value).toEqual({ taskId: expect.any(String), toolCallName: 'count_to', progress: 100, status: 'RUNNING', detail: 'Counted 3 of 3.' });
  });

  it('gives a tool’s image as TOOL_RESULT_DATA_DELTA, and to the user as DATA_BLOCK_* with the final answer', async () => {
    const events = await chat({ sessionId: newSessionId('harness'), userId: 'local', input: 'chart 3, 5, 2' });
    const data = of(events, 'TOOL_RESULT_DATA_DELTA')[0]!;
    expect(data).toMatchObject({ toolCallName: 'render_chart', data: { type: 'data', source: { type: 'base64', media_type: 'image/png' }, name: expect.stringMatching(/\.png$/) } });
    const png = Uint8Array.from(atob(data.data.source.data), (char) => char.charCodeAt(0));
    expect([...png.slice(1, 4)].map((byte) => String.fromCharCode(byte)).join('')).toBe('PNG');
    expect(new DataView(png.buffer).getUint32(16)).toBe(240); // IHDR width
    expect(of(events, 'TOOL_RESULT_TEXT_DELTA')[0]!.delta).toBe('A bar chart of 3 values, from 2 to 5.');

    const names = types(events);
    expect(names.slice(-5)).toEqual(['DATA_BLOCK_START', 'DATA_BLOCK_DELTA', 'DATA_BLOCK_END', 'AGENT_RESULT', 'AGENT_END']);
    const sent = of(events, 'DATA_BLOCK_DELTA').map((event) => event.delta).join('');
    expect(sent).toBe(data.data.source.data);
    expect(events.at(-2)!.result.content.at(-1)).toEqual(data.data);
  });

  it('stops a run that spent TURN_TOKEN_BUDGET with REQUEST_STOP, and the next request with the session goes on', async () => {
    const sessionId = newSessionId('harness');
    const stopped = await chat({ sessionId, userId: 'local', input: 'calculate 2+2', chatModel: { name: 'demo:budget' } });
    // The first call and its tool ran; the second call waits for the next request.
    expect(of(stopped, 'MODEL_CALL_START')).toHaveLength(1);
    expect(of(stopped, 'TOOL_RESULT_END')[0]).toMatchObject({ state: 'success' });
    expect(types(stopped).slice(-3)).toEqual(['REQUEST_STOP', 'AGENT_RESULT', 'AGENT_END']);
    expect(of(stopped, 'REQUEST_STOP')[0]).toMatchObject({ generateReason: 'MIDDLEWARE_STOP_REQUESTED', reason: expect.stringContaining('token budget') });
    expect(stopped.at(-2)!.result.metadata.agentscope_generate_reason).toBe('MIDDLEWARE_STOP_REQUESTED');
    const resumed = await chat({ sessionId, userId: 'local', input: 'go on' });
    expect(types(resumed).at(-1)).toBe('AGENT_END');
    expect((await history(sessionId)).map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'user', 'assistant']);
  });

  it('gives an out-of-band note as HINT_BLOCK: the history was summarised to fit the context window', async () => {
    const sessionId = newSessionId('harness');
    let hints: Event[] = [];
    for (let index = 0; index < 40 && hints.length === 0; index++) {
      const events = await chat({ sessionId, userId: 'local', input: `message ${index}: ${'lorem ipsum '.repeat(15)}`, chatModel: { name: 'demo:small' } });
      hints = of(events, 'HINT_BLOCK');
    }
    expect(hints[0]).toMatchObject({ hintSource: 'system', hint: expect.stringMatching(/^\d+ earlier messages were summarised/), blockId: expect.any(String) });
  });

  it('runs a sub-agent (agent_spawn) in a session of its own: its events forwarded with their source, SUBAGENT_EXPOSED, the session reachable', async () => {
    const sessionId = newSessionId('harness');
    const events = await chat({ sessionId, userId: 'local', input: 'call agent_spawn {"agentId":"researcher","task":"calculate 2*3","expose_to_user":true}' });
    const exposed = of(events, 'SUBAGENT_EXPOSED')[0]!;
    expect(exposed).toEqual({
      type: 'SUBAGENT_EXPOSED',
      id: expect.any(String),
      createdAt: expect.any(String),
      subagentId: expect.stringMatching(/^sub_/),
      agentId: 'researcher',
      sessionId: expect.stringContaining('.researcher-'),
      label: 'researcher',
    });
    const forwarded = events.filter((event) => event.source === 'main/researcher');
    expect(types(forwarded)[0]).toBe('AGENT_START');
    expect(forwarded[0]!.sessionId).toBe(exposed.sessionId);
    expect(types(forwarded).slice(-2)).toEqual(['AGENT_RESULT', 'AGENT_END']);
    expect(of(forwarded, 'TOOL_RESULT_TEXT_DELTA')[0]).toMatchObject({ toolCallName: 'calculator', delta: '6' });
    // The forwarded events sit inside the parent's agent_spawn, before its result.
    const spawnEnd = events.findIndex((event) => event.type === 'TOOL_RESULT_END' && event.toolCallName === 'agent_spawn' && !event.source);
    expect(events.indexOf(forwarded.at(-1)!)).toBeLessThan(spawnEnd);
    const result = events.find((event) => event.type === 'TOOL_RESULT_TEXT_DELTA' && event.toolCallName === 'agent_spawn' && !event.source)!;
    expect(result.delta).toBe(`Sub-agent researcher (session ${exposed.sessionId}) stopped with end_turn: Here is what the tools returned:\n- calculator: 6`);
    expect(new Set(events.map((event) => event.id)).size).toBe(events.length);

    // The child is a session like any other, for the same user.
    const child = await session(exposed.sessionId);
    expect(child.status).toBe(200);
    expect((await history(exposed.sessionId)).map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    const continued = await chat({ sessionId: exposed.sessionId, userId: 'local', input: 'calculate 3*3' });
    expect(of(continued, 'TOOL_RESULT_TEXT_DELTA')[0]!.delta).toBe('9');

    // Not exposed: no SUBAGENT_EXPOSED; a sub-agent cannot spawn.
    const quiet = await chat({ sessionId, userId: 'local', input: 'call agent_spawn {"agentId":"helper","task":"call agent_spawn {\\"agentId\\":\\"x\\",\\"task\\":\\"y\\"}"}' });
    expect(of(quiet, 'SUBAGENT_EXPOSED')).toEqual([]);
    expect(quiet.filter((event) => event.source === 'main/helper' && event.type === 'TOOL_CALL_START')).toEqual([]);
  });

  it('keeps one history for both doors: begun here, continued on the turns API, and back', async () => {
    const sessionId = newSessionId('harness');
    await chat({ sessionId, userId: 'local', input: 'calculate 1+1' });
    expect((await (await postTurn(sessionId, { messages: [user('calculate 2+2')] })).json()) as any).toMatchObject({ stopReason: 'end_turn' });
    await chat({ sessionId, userId: 'local', input: 'hello again' });
    const users = (await history(sessionId)).filter((message) => message.role === 'user').map((message) => message.content);
    expect(users).toEqual(['calculate 1+1', 'calculate 2+2', 'hello again']);
  });

  describe('refuses what the protocol refuses, with a 400 and the session unchanged', () => {
    const cases: [string, Record<string, unknown> | string, string][] = [
      ['no sessionId', { userId: 'local', input: 'hi' }, 'invalid_request'],
      ['an empty sessionId', { sessionId: '', userId: 'local', input: 'hi' }, 'invalid_request'],
      ['no userId', { sessionId: 'X', input: 'hi' }, 'invalid_request'],
      ['an empty userId', { sessionId: 'X', userId: '', input: 'hi' }, 'invalid_request'],
      ['no input', { sessionId: 'X', userId: 'local' }, 'invalid_request'],
      ['an empty input', { sessionId: 'X', userId: 'local', input: '  ' }, 'invalid_request'],
      ['a chatModel that is not an object', { sessionId: 'X', userId: 'local', input: 'hi', chatModel: 'gpt-4o' }, 'invalid_request'],
      ['a userId that is not a string', { sessionId: 'X', userId: 42, input: 'hi' }, 'invalid_request'],
      ['a bad temperature', { sessionId: 'X', userId: 'local', input: 'hi', chatModel: { temperature: 5 } }, 'invalid_request'],
      ['a confirmation of no pending call', { sessionId: 'X', userId: 'local', confirmResults: [{ confirmed: true, toolCall: { id: 'nope', name: 'x', input: {}, content: null, metadata: {}, state: 'asking' }, rules: null }] }, 'unknown_tool_call'],
      ['text that is not JSON', '{nope', 'invalid_json'],
    ];
    it.each(cases)('%s', async (_name, body, code) => {
      const sessionId = newSessionId('harness-bad');
      await chat({ sessionId, userId: 'local', input: 'hello' });
      const before = { history: await history(sessionId), session: (await session(sessionId)).body };
      const payload = typeof body === 'string' ? body : JSON.stringify(body).replaceAll('"X"', JSON.stringify(sessionId));
      const response = await fetchWorker('/harness/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: payload });
      expect(response.status).toBe(400);
      expect(((await response.json()) as any).error.code).toBe(code);
      expect(await history(sessionId)).toEqual(before.history);
      expect((await session(sessionId)).body).toEqual(before.session);
    });

    it('a userId that is not the token’s user, where auth is on: 403', async () => {
      const call = async (userId: string, sub: string) =>
        callWorker(
          new Request('http://localhost/harness/chat', {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${await mint({ sub })}` },
            body: JSON.stringify({ sessionId: 'h-auth', userId, input: 'hi' }),
          }),
          { ...env, AUTH_SECRET: SECRET },
        );
      const mismatch = await call('mallory', 'alice');
      expect(mismatch.status).toBe(403);
      expect(((await mismatch.json()) as any).error.code).toBe('user_mismatch');
      const match = await call('alice', 'alice');
      expect(match.status).toBe(200);
      expect(checked((await match.json()) as Event[]).at(-1)!.type).toBe('AGENT_END');
    });
  });
});
