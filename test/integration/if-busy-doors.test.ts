/**
 * The four policies of a second message while a turn runs, on the doors other than the turns API,
 * each in its own words: the Harness endpoint (`ifBusy` in its body; a steered input shows as
 * HINT_BLOCK), AG-UI (`forwardedProps.ifBusy`) and the chat socket (`request_completion`'s
 * `if_busy`). The running turn is a slow one, started over the turns API.
 */
import { describe, expect, it } from 'vitest';
import { checkHistoryInvariants, fetchWorker, history, newSessionId, waitIdle } from '../helpers/api';
import { running } from '../helpers/busy';
import { openSocket } from '../helpers/socket';

const users = async (id: string) => (await history(id)).filter((message) => message.role === 'user').map((message) => message.content);

function harness(body: Record<string, unknown>): Promise<Response> {
  return fetchWorker('/harness/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ userId: 'local', ...body }) });
}

function agui(threadId: string, text: string, ifBusy: string): Promise<Response> {
  const body = { threadId, runId: `run-${crypto.randomUUID()}`, messages: [{ id: crypto.randomUUID(), role: 'user', content: text }], tools: [], context: [], state: {}, forwardedProps: { ifBusy } };
  return fetchWorker('/ag-ui', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

/** The `data:` lines of an SSE body (AG-UI's events), parsed. */
async function dataLines(response: Response): Promise<any[]> {
  return (await response.text())
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)));
}

describe('the Harness endpoint while a turn runs', () => {
  it('reject: 409 session_busy', async () => {
    const id = newSessionId('h-reject');
    const first = await running(id);
    const response = await harness({ sessionId: id, input: 'me too' });
    expect(response.status).toBe(409);
    expect(((await response.json()) as any).error.code).toBe('session_busy');
    await first.rest;
  });

  it('steer: the run goes on with the message, shown as HINT_BLOCK, to its end', async () => {
    const id = newSessionId('h-steer');
    const first = await running(id);
    const events = (await (await harness({ sessionId: id, input: 'also this', ifBusy: 'steer' })).json()) as any[];
    expect(events.find((event) => event.type === 'HINT_BLOCK')).toMatchObject({ hintSource: 'user', hint: 'also this' });
    expect(events.at(-1).type).toBe('AGENT_END');
    await first.rest;
    expect(await users(id)).toEqual(['first', 'also this']);
  });

  it('steer with nothing a user said: a 400, and nothing waits', async () => {
    const id = newSessionId('h-steer-empty');
    const first = await running(id);
    const toolResults = [{ id: 'call_x', name: 'lookup', output: [{ type: 'text', text: 'y' }] }];
    const response = await harness({ sessionId: id, toolResults, ifBusy: 'steer' });
    expect(response.status).toBe(400);
    expect(((await response.json()) as any).error).toMatchObject({ code: 'invalid_request', message: expect.stringContaining('user messages only') });
    await first.rest;
    expect((await waitIdle(id)).queuedTurns).toEqual([]);
  });

  it('enqueue: the run waits for the running turn, then streams', async () => {
    const id = newSessionId('h-enqueue');
    const first = await running(id);
    const events = (await (await harness({ sessionId: id, input: 'next', ifBusy: 'enqueue' })).json()) as any[];
    expect(events[0].type).toBe('AGENT_START');
    expect(events.at(-1).type).toBe('AGENT_END');
    expect((await first.rest).at(-1)!.data.stopReason).toBe('end_turn');
    expect(await users(id)).toEqual(['first', 'next']);
  });

  it('interrupt: the running turn is cancelled, this run goes at once', async () => {
    const id = newSessionId('h-interrupt');
    const first = await running(id);
    const events = (await (await harness({ sessionId: id, input: 'instead', ifBusy: 'interrupt' })).json()) as any[];
    expect(events.at(-1).type).toBe('AGENT_END');
    expect((await first.rest).at(-1)!.data).toMatchObject({ stopReason: 'error', error: { code: 'cancelled' } });
    checkHistoryInvariants(await history(id));
  });
});

describe('AG-UI while a turn runs', () => {
  it('enqueue waits, then runs; steer joins the running turn; reject is 409', async () => {
    const id = newSessionId('agui-busy');
    const first = await running(id);
    expect((await agui(id, 'no', 'reject')).status).toBe(409);
    const steered = await dataLines(await agui(id, 'steered in', 'steer'));
    expect(steered.at(-1).type).toBe('RUN_FINISHED');
    await first.rest;
    const second = await running(id, 'second');
    const queued = await dataLines(await agui(id, 'queued', 'enqueue'));
    expect(queued[0].type).toBe('RUN_STARTED');
    expect(queued.at(-1).type).toBe('RUN_FINISHED');
    await second.rest;
    await waitIdle(id);
    expect(await users(id)).toEqual(['first', 'steered in', 'second', 'queued']);
  });
});

describe('AG-UI: a steer with no user message', () => {
  it('is refused with 400 nothing_to_steer, and nothing waits', async () => {
    const id = newSessionId('agui-steer-empty');
    const first = await running(id);
    const body = { threadId: id, runId: 'run-sys', messages: [{ id: crypto.randomUUID(), role: 'system', content: 'be brief' }], tools: [], context: [], forwardedProps: { ifBusy: 'steer' } };
    const response = await fetchWorker('/ag-ui', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(response.status).toBe(400);
    expect(((await response.json()) as any).error.code).toBe('nothing_to_steer');
    await first.rest;
    expect((await waitIdle(id)).queuedTurns).toEqual([]);
  });
});

describe('AG-UI: interrupt', () => {
  it('cancels the running turn and runs this one', async () => {
    const id = newSessionId('agui-interrupt');
    const first = await running(id);
    const events = await dataLines(await agui(id, 'instead', 'interrupt'));
    expect(events[0].type).toBe('RUN_STARTED');
    expect(events.at(-1).type).toBe('RUN_FINISHED');
    expect((await first.rest).at(-1)!.data).toMatchObject({ stopReason: 'error', error: { code: 'cancelled' } });
    expect(await users(id)).toEqual(['first', 'instead']);
  });
});

describe('the chat socket while a completion runs', () => {
  it('if_busy: enqueue and steer are told with a notification; reject is session_busy; every completion reaches the socket', async () => {
    const id = newSessionId('socket-busy');
    const socket = await openSocket(id);
    const first = await running(id);
    // One frame at a time: this pool's runtime may hand a burst of frames to the object out of order.
    const ask = async (text: string, ifBusy: string, requestId: string) => {
      socket.send({ type: 'append_message', role: 'user', content: text });
      await socket.until('message_appended');
      socket.send({ type: 'request_completion', if_busy: ifBusy, request_id: requestId });
    };
    await ask('refused', 'reject', 'r1');
    expect((await socket.until('error')).at(-1)).toMatchObject({ code: 'session_busy', request_id: 'r1' });
    await ask('steered', 'steer', 'r2');
    expect((await socket.until('system_notification')).at(-1)!.message).toMatch(/^Handed to the running completion/);
    await ask('queued', 'enqueue', 'r3');
    // The steered messages keep their place in the queue until the running completion takes them.
    expect((await socket.until('system_notification')).at(-1)!.message).toMatch(/^Queued at position 2/);
    await first.rest;
    await socket.until('completion_done');
    await socket.until('completion_done');
    await waitIdle(id);
    // The refused message stayed staged; it went with the next completion that took what was staged.
    expect(await users(id)).toEqual(['first', 'refused', 'steered', 'queued']);
    checkHistoryInvariants(await history(id));
  });

  it('if_busy: interrupt stops the running completion and starts this one', async () => {
    const id = newSessionId('socket-interrupt');
    const socket = await openSocket(id);
    const first = await running(id);
    socket.send({ type: 'append_message', role: 'user', content: 'instead' });
    await socket.until('message_appended');
    socket.send({ type: 'request_completion', if_busy: 'interrupt' });
    expect((await first.rest).at(-1)!.data).toMatchObject({ stopReason: 'error', error: { code: 'cancelled' } });
    await socket.until('completion_done');
    await waitIdle(id);
    expect(await users(id)).toEqual(['first', 'instead']);
  });
});
