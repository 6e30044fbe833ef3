/**
 * Every case of docs/turns-api.md, in each of the turns API's three modes, on the demo model: every
 * event type and every stop reason, checked on the parsed events and on the stored history.
 */
import { describe, expect, it } from 'vitest';
import { checkHistoryInvariants, history, newSessionId, turn, user, type TurnResult, type WireEvent } from '../helpers/api';

const MODES = ['delta', 'message', 'none'] as const;
type Mode = (typeof MODES)[number];

/** What a turn told the client, the same whatever the mode: text, thinking, calls, results, stop. */
type Told = { text: string; thinking: string; calls: any[]; results: any[]; stop: Record<string, any>; names: string[] };

function told(result: TurnResult): Told {
  expect(result.status).toBe(200);
  if (result.mode === 'none') {
    const body = result.body;
    const blocks = body.messages.flatMap((m: any) => (m.role === 'assistant' ? (typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content) : []));
    return {
      text: blocks.filter((b: any) => b.type === 'text').map((b: any) => b.text).join(''),
      thinking: blocks.filter((b: any) => b.type === 'thinking').map((b: any) => b.thinking).join(''),
      calls: blocks.filter((b: any) => b.type === 'tool_use').map(({ toolCallId, name, input }: any) => ({ toolCallId, name, input })),
      results: body.messages.filter((m: any) => m.role === 'tool').map(({ toolCallId, content, isError }: any) => ({ toolCallId, content, ...(isError ? { isError } : {}) })),
      stop: { stopReason: body.stopReason, ...(body.error ? { error: body.error } : {}), ...(body.maxIterationsReached ? { maxIterationsReached: true } : {}) },
      names: [],
    };
  }
  const events = result.events;
  checkFraming(events, result.mode);
  const of = (name: string) => events.filter((e) => e.event === name).map((e) => e.data);
  const textOf = result.mode === 'delta' ? of('text_delta').map((d) => d.delta) : of('text').map((d) => d.text);
  const thinkingOf = result.mode === 'delta' ? of('thinking_delta').map((d) => d.delta) : of('thinking').map((d) => d.thinking);
  const stop = events.at(-1)!.data;
  return {
    text: textOf.join(''),
    thinking: thinkingOf.join(''),
    calls: of('tool_call'),
    results: of('tool_result'),
    stop: { stopReason: stop.stopReason, ...(stop.error ? { error: stop.error } : {}), ...(stop.maxIterationsReached ? { maxIterationsReached: true } : {}) },
    names: events.map((e) => e.event),
  };
}

/** turn_start first, turn_stop last and once, increasing ids, only the mode's own event names. */
function checkFraming(events: WireEvent[], mode: 'delta' | 'message'): void {
  expect(events[0]?.event).toBe('turn_start');
  expect(events.at(-1)?.event).toBe('turn_stop');
  expect(events.filter((e) => e.event === 'turn_stop')).toHaveLength(1);
  expect(events.filter((e) => e.event === 'turn_start')).toHaveLength(1);
  const ids = events.map((e) => Number(e.id));
  expect(ids).toEqual([...ids].sort((a, b) => a - b));
  expect(new Set(ids).size).toBe(ids.length);
  const allowed = mode === 'delta' ? ['text_delta', 'thinking_delta'] : ['text', 'thinking'];
  for (const e of events) expect(['turn_start', 'turn_stop', 'tool_call', 'tool_result', ...allowed]).toContain(e.event);
}

describe.each(MODES)('stream: "%s"', (mode: Mode) => {
  const send = (sessionId: string, messages: unknown[], extra: Record<string, unknown> = {}) =>
    turn(sessionId, { messages, ...extra, ...(mode === 'none' ? {} : { stream: mode }) }).then(told);

  it('answers with thinking and text and stops with end_turn', async () => {
    const id = newSessionId(mode);
    const result = await send(id, [user('hello there')]);
    expect(result.thinking).toBe('No tool fits this message, so I answer with text.');
    expect(result.text).toMatch(/^You said: "hello there"\. I am the demo model/);
    expect(result.stop).toEqual({ stopReason: 'end_turn' });
    if (mode === 'delta') expect(result.names.filter((n) => n === 'text_delta').length).toBeGreaterThan(3);
    if (mode === 'message') expect(result.names.filter((n) => n === 'text')).toHaveLength(1);
    const stored = await history(id);
    expect(stored).toEqual([
      { role: 'user', content: 'hello there' },
      { role: 'assistant', content: [{ type: 'thinking', thinking: result.thinking }, { type: 'text', text: result.text }] },
    ]);
  });

  it('runs a trusted tool inline and keeps going in the same turn', async () => {
    const id = newSessionId(mode);
    const result = await send(id, [user('calculate (2+3)*4')]);
    expect(result.calls).toEqual([{ toolCallId: 'call_demo_1_0', name: 'calculator', input: { expression: '(2+3)*4' } }]);
    expect(result.results).toEqual([{ toolCallId: 'call_demo_1_0', content: '20' }]);
    expect(result.text).toContain('- calculator: 20');
    expect(result.stop).toEqual({ stopReason: 'end_turn' });
    if (mode !== 'none') {
      const order = result.names.filter((n) => n === 'tool_call' || n === 'tool_result');
      expect(order).toEqual(['tool_call', 'tool_result']);
    }
    const stored = await history(id);
    expect(stored.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    checkHistoryInvariants(stored);
  });

  it('stops for an untrusted tool, and runs it once permission is granted', async () => {
    const id = newSessionId(mode);
    const first = await send(id, [user('remember buy milk')]);
    expect(first.calls).toEqual([{ toolCallId: 'call_demo_1_0', name: 'memory_save', input: { text: 'buy milk' } }]);
    expect(first.results).toEqual([]);
    expect(first.stop).toEqual({ stopReason: 'tool_use' });

    const second = await send(id, [{ role: 'tool_permission', toolCallId: 'call_demo_1_0', granted: true }]);
    expect(second.results).toEqual([{ toolCallId: 'call_demo_1_0', content: 'Saved note 1.' }]);
    expect(second.text).toContain('- memory_save: Saved note 1.');
    expect(second.stop).toEqual({ stopReason: 'end_turn' });

    const stored = await history(id);
    expect(stored.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(stored.some((m) => m.role === 'tool_permission')).toBe(false);
    checkHistoryInvariants(stored);
  });

  it.each([
    ['with a reason', { reason: 'not today' }, 'Tool call denied: not today'],
    ['without a reason', {}, 'Tool call denied'],
  ])('tells the model when permission is denied %s', async (_label, extra, text) => {
    const id = newSessionId(mode);
    await send(id, [user('remember the code 1234')]);
    const second = await send(id, [{ role: 'tool_permission', toolCallId: 'call_demo_1_0', granted: false, ...extra }]);
    expect(second.results).toEqual([{ toolCallId: 'call_demo_1_0', content: text, isError: true }]);
    expect(second.text).toContain(`- memory_save: ${text}`);
    expect(second.stop).toEqual({ stopReason: 'end_turn' });
    const stored = await history(id);
    expect(stored[2]).toEqual({ role: 'tool', toolCallId: 'call_demo_1_0', content: text, isError: true });
  });

  it('stops for a client tool and resumes with its result', async () => {
    const id = newSessionId(mode);
    const tools = [{ name: 'get_weather', description: 'Weather by city', parameters: { type: 'object', properties: { location: { type: 'string' } } } }];
    const first = await send(id, [user('call get_weather {"location":"Tokyo"}')], { tools });
    expect(first.calls).toEqual([{ toolCallId: 'call_demo_1_0', name: 'get_weather', input: { location: 'Tokyo' } }]);
    expect(first.stop).toEqual({ stopReason: 'tool_use' });

    const second = await send(id, [{ role: 'tool', toolCallId: 'call_demo_1_0', content: 'Tokyo: 18°C, cloudy' }], { tools });
    expect(second.results).toEqual([]); // the client's own result is not echoed back
    expect(second.text).toContain('- get_weather: Tokyo: 18°C, cloudy');
    expect(second.stop).toEqual({ stopReason: 'end_turn' });
    const stored = await history(id);
    expect(stored[2]).toEqual({ role: 'tool', toolCallId: 'call_demo_1_0', content: 'Tokyo: 18°C, cloudy' });
  });

  it('runs the trusted calls of a mixed batch at once and stops for the rest; results stay in call order', async () => {
    const id = newSessionId(mode);
    const tools = [{ name: 'get_weather' }];
    const first = await send(id, [user('remember a; calculate 1+1; call get_weather {"location":"Oslo"}; what time is it in UTC')], { tools });
    expect(first.calls.map((c) => c.name)).toEqual(['memory_save', 'calculator', 'get_weather', 'current_time']);
    expect(first.results.map((r) => r.toolCallId).sort()).toEqual(['call_demo_1_1', 'call_demo_1_3']);
    expect(first.stop).toEqual({ stopReason: 'tool_use' });

    // The trusted results are stored at once, each in its call's place.
    const midway = await history(id);
    expect(midway.map((m) => m.toolCallId ?? m.role)).toEqual(['user', 'assistant', 'call_demo_1_1', 'call_demo_1_3']);

    const second = await send(
      id,
      [
        { role: 'tool', toolCallId: 'call_demo_1_2', content: 'Oslo: 3°C' },
        { role: 'tool_permission', toolCallId: 'call_demo_1_0', granted: true },
        user('thanks'),
      ],
      { tools },
    );
    expect(second.results).toEqual([{ toolCallId: 'call_demo_1_0', content: 'Saved note 1.' }]);
    expect(second.stop).toEqual({ stopReason: 'end_turn' });
    const stored = await history(id);
    expect(stored.map((m) => m.toolCallId ?? m.role)).toEqual([
      'user', 'assistant', 'call_demo_1_0', 'call_demo_1_1', 'call_demo_1_2', 'call_demo_1_3', 'user', 'assistant',
    ]);
    checkHistoryInvariants(stored);
  });

  it('stops with refusal when the model refuses', async () => {
    const id = newSessionId(mode);
    const result = await send(id, [user('demo:refuse')]);
    expect(result.text).toBe("I can't help with that.");
    expect(result.stop).toEqual({ stopReason: 'refusal' });
  });

  it('stops with max_tokens and never runs a tool call the limit cut off', async () => {
    const id = newSessionId(mode);
    const result = await send(id, [user('demo:long')]);
    expect(result.calls).toEqual([]);
    expect(result.stop).toEqual({
      stopReason: 'max_tokens',
      error: { code: 'output_limit', message: 'The model reached its output limit before it finished.' },
    });
    const stored = await history(id);
    expect(stored[1].content).toBe('This answer runs on and on until the output limit cuts it while it writes a tool call');
    checkHistoryInvariants(stored);
  });

  it('stops with error when the model fails mid-stream, and stores no half message', async () => {
    const id = newSessionId(mode);
    const result = await send(id, [user('demo:error')]);
    expect(result.stop).toEqual({
      stopReason: 'error',
      error: { code: 'upstream_error', message: 'The demo model failed on purpose (demo:error).' },
    });
    if (mode === 'delta') expect(result.text).toBe('I start to answer, and then');
    expect(await history(id)).toEqual([{ role: 'user', content: 'demo:error' }]);
    // The session is consistent and unlocked: the next turn works.
    const next = await send(id, [user('hello again')]);
    expect(next.stop).toEqual({ stopReason: 'end_turn' });
  });

  it('bounds the tool rounds by MAX_ITERATIONS and ends with a summary call without tools', async () => {
    const id = newSessionId(mode);
    const result = await send(id, [user('demo:loop')]);
    expect(result.calls).toHaveLength(3); // MAX_ITERATIONS is 3 in the tests
    expect(result.results).toHaveLength(3);
    expect(result.stop).toEqual({ stopReason: 'end_turn', maxIterationsReached: true });
    const stored = await history(id);
    expect(stored.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
    checkHistoryInvariants(stored);
  });
});
