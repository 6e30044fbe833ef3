/**
 * What a hostile model or a careless client must never do: lock a session (whatever throws during a
 * turn or after it), sidestep a permission rule through a sub-agent, fan out without bound, hold a
 * session with a slow pattern, or outlive a promise (idempotency keys, message sizes). Everything a
 * model emits is untrusted input: prompt injection makes it emit whatever the attacker wants.
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { sessionObjectName } from '../../src/http/session-stub';
import { SessionMeta } from '../../src/session/store/meta';
import { TurnStore } from '../../src/session/store/turns';
import { MAX_SUBJECT_CHARS } from '../../src/tools/permission-rules';
import { fetchWorker, history, jsonTurn, newSessionId, postTurn, readSse, session, streamTurn, user, waitIdle } from '../helpers/api';
import { sentWith } from '../helpers/upstream-log';
import { partsOf } from '../helpers/session-parts';

const stubFor = (sessionId: string) => env.SESSIONS.getByName(sessionObjectName('local', sessionId));

/** JSON nested `levels` deep: far past what the service accepts, well within what JSON.parse takes. */
const deepJson = (levels: number) => `${'{"x":'.repeat(levels)}1${'}'.repeat(levels)}`;

/** A session whose calculator is denied (or asked) by a rule, set with the answer to a permission. */
async function sessionWithRule(behavior: 'deny' | 'ask', toolName = 'calculator', content = '*'): Promise<string> {
  const id = newSessionId(`rule-${behavior}`);
  const asked = await jsonTurn(id, { messages: [user('remember x')] });
  const callId = asked.messages[0].content.find((block: any) => block.type === 'tool_use').toolCallId;
  const rule = { tool_name: toolName, rule_content: content, behavior, source: 'session' };
  await jsonTurn(id, { messages: [{ role: 'tool_permission', toolCallId: callId, granted: true, rule }] });
  return id;
}

const spawn = (task: string, agentId = 'helper') => `call agent_spawn ${JSON.stringify({ agentId, task })}`;

describe('no session is ever locked', () => {
  it('takes tool arguments nested 7,000 deep as invalid arguments: a tool error, and the session goes on', async () => {
    const id = newSessionId('deep');
    const { of, stop } = await streamTurn(id, { messages: [user(`call calculator ${deepJson(7000)}`)] });
    expect(of('tool_result')[0]!.content).toMatch(/^The arguments nest deeper than 64 levels: /);
    expect(stop.stopReason).toBe('end_turn');
    expect((await session(id)).body.running).toBe(false);
    expect((await jsonTurn(id, { messages: [user('calculate 6*7')] })).stopReason).toBe('end_turn');
    const cancel = await fetchWorker(`/sessions/${id}/turns/${stop.turnId}/cancel`, { method: 'POST' });
    expect(cancel.status).toBe(409);
    await cancel.arrayBuffer();
    expect((await fetchWorker(`/sessions/${id}`, { method: 'DELETE' })).status).toBe(204);
  });

  it('accepts arguments 64 levels deep, and takes 65 as invalid', async () => {
    const id = newSessionId('deep-ok');
    const { of } = await streamTurn(id, { messages: [user(`call get_weather ${deepJson(64)}`)], tools: [{ name: 'get_weather' }] });
    expect(of('tool_call')[0]!.input).toEqual(JSON.parse(deepJson(64)));
    const over = await streamTurn(newSessionId('deep-over'), { messages: [user(`call calculator ${deepJson(65)}`)] });
    expect(over.of('tool_result')[0]!.content).toMatch(/^The arguments nest deeper than 64 levels: /);
  });

  it('ends the turn with turn_stop error and frees the session when the event log cannot be written', async () => {
    const id = newSessionId('log-fails');
    await jsonTurn(id, { messages: [user('hello')] });
    await runInDurableObject(stubFor(id), (instance) => {
      const turns = partsOf<{ stores: { turns: { appendEvents: () => void } } }>(instance).stores.turns;
      turns.appendEvents = () => {
        throw new Error('the disk is full');
      };
    });
    const { stop } = await streamTurn(id, { messages: [user('calculate 1+1')] });
    expect(stop.stopReason).toBe('error');
    const view = await waitIdle(id);
    expect(view.running).toBe(false);
    expect(view.lastTurn.stopReason).toBe('error');
    // The session takes the next turn (whose log fails too, and which still ends).
    const next = await postTurn(id, { messages: [user('hello again')] });
    expect(next.status).toBe(200);
    expect(((await next.json()) as any).stopReason).toBeDefined();
    expect((await session(id)).body.running).toBe(false);
  });

  it('lets one failing listener stop none of the others: the client still gets its whole answer', async () => {
    const id = newSessionId('listener-fails');
    await jsonTurn(id, { messages: [user('hello')] });
    await runInDurableObject(stubFor(id), (instance) => {
      const hub = partsOf<{ hub: { open: boolean; broadcast: () => void } }>(instance).hub;
      // The sockets' listener runs first; its broadcast throws on every event.
      hub.open = true;
      hub.broadcast = () => {
        throw new Error('a socket encoder failed');
      };
    });
    const body = await jsonTurn(id, { messages: [user('calculate 6*7')] });
    expect(body.stopReason).toBe('end_turn');
    expect(body.messages.find((message: any) => message.role === 'tool').content).toBe('42');
    expect((await session(id)).body.running).toBe(false);
  });

  it('refuses JSON nested too deep in a request with a 400 that changes nothing', async () => {
    const id = newSessionId('deep-input');
    const asked = await jsonTurn(id, { messages: [user('remember x')] });
    const callId = asked.messages[0].content.find((block: any) => block.type === 'tool_use').toolCallId;
    const before = { session: (await session(id)).body, history: await history(id) };
    const response = await fetchWorker(`/sessions/${id}/turns`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"messages":[{"role":"tool_permission","toolCallId":"${callId}","granted":true,"input":${deepJson(7000)}}]}`,
    });
    expect(response.status).toBe(400);
    const error = ((await response.json()) as any).error;
    expect(error.code).toBe('invalid_json');
    expect(error.message).toContain('64 levels');
    expect({ session: (await session(id)).body, history: await history(id) }).toEqual(before);
  });

  it('names a field of megabytes it does not take by its first 64 characters: the 400 does not send it back', async () => {
    const id = newSessionId('huge-key');
    const response = await fetchWorker(`/sessions/${id}/turns`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ['k'.repeat(1_000_000)]: 1, messages: [user('hi')] }),
    });
    expect(response.status).toBe(400);
    const text = await response.text();
    expect(text.length).toBeLessThan(1000);
    expect(JSON.parse(text).error.message).toBe(`The request body is not valid: Unrecognized key: "${'k'.repeat(64)}"….`);
    expect((await session(id)).status).toBe(404);
  });
});

describe('permission rules bind sub-agents', () => {
  /** What a sub-agent asked to calculate returns, in a session with a rule on calculator. */
  const spawnedUnder = async (behavior: 'deny' | 'ask'): Promise<string> => {
    const body = await jsonTurn(await sessionWithRule(behavior), { messages: [user(spawn('calculate 6*7'))] });
    return body.messages.find((message: any) => message.role === 'tool').content;
  };

  it('denies in the sub-agent what the session denies', async () => {
    const result = await spawnedUnder('deny');
    expect(result).toContain('calculator: Tool call denied by a permission rule');
    expect(result).not.toMatch(/calculator: 42/);
    // The sub-agent's own session keeps the rule: the user opening it meets it there too.
    const childId = /session ([^)]+)\)/.exec(result)![1]!;
    const child = await jsonTurn(childId, { messages: [user('calculate 1+1')] });
    expect(child.messages.find((message: any) => message.role === 'tool')).toMatchObject({ isError: true, content: expect.stringContaining('denied') });
  });

  it('makes the sub-agent ask where the session asks: the call does not run', async () => {
    const result = await spawnedUnder('ask');
    expect(result).toContain('stopped with tool_use');
    expect(result).not.toMatch(/calculator: 42/);
  });
});

describe('fan-out is bounded', () => {
  it('starts at most MAX_SUBAGENTS_PER_TURN sub-agents in a turn; the calls past it get an error result', async () => {
    const id = newSessionId('fanout');
    const tasks = Array.from({ length: 5 }, (_, index) => spawn(`calculate ${index}+1`, `a${index}`));
    const body = await jsonTurn(id, { messages: [user(tasks.join('; '))] });
    const results = body.messages.filter((message: any) => message.role === 'tool');
    expect(results).toHaveLength(5);
    // The test deployment's cap is 3 (vitest.config.ts).
    expect(results.filter((message: any) => !message.isError)).toHaveLength(3);
    for (const refused of results.filter((message: any) => message.isError)) {
      expect(refused.content).toMatch(/started its 3 sub-agents, the most one turn may/);
    }
  });

  it('runs at most TOOL_CONCURRENCY server tools of a batch at once', async () => {
    const id = newSessionId('concurrency');
    const calls = Array.from({ length: 6 }, (_, index) => `calculate ${index}*2`).join('; ');
    const response = await postTurn(id, { messages: [user(calls)], stream: 'pi' });
    const events = (await readSse(response)).map((event) => event.event);
    const starts = events.flatMap((event, index) => (event === 'tool_execution_start' ? [index] : []));
    const firstEnd = events.indexOf('tool_execution_end');
    expect(starts).toHaveLength(6);
    // The test deployment runs three at once (vitest.config.ts): the fourth starts once one ended.
    expect(starts.filter((index) => index < firstEnd)).toHaveLength(3);
  });
});

describe('rule matching', () => {
  it('matches a pattern that backtracking would take hours over, at once, and the session goes on', async () => {
    const id = await sessionWithRule('deny', 'memory_save', '*a*a*a*a*a*a*a*b');
    // No match: memory_save asks, as it always does.
    const asked = await jsonTurn(id, { messages: [user(`remember ${'a'.repeat(3000)}`)] });
    expect(asked.stopReason).toBe('tool_use');
    const callId = asked.messages[0].content.find((block: any) => block.type === 'tool_use').toolCallId;
    // A match: denied by the rule.
    const body = await jsonTurn(id, {
      messages: [{ role: 'tool_permission', toolCallId: callId, granted: false }, user(`remember ${'a'.repeat(3000)}b`)],
    });
    expect(body.stopReason).toBe('end_turn');
    expect(body.messages.filter((message: any) => message.role === 'tool').at(-1).content).toContain('denied by a permission rule');
  });

  it('lets no subject past a deny rule by its length', async () => {
    const id = await sessionWithRule('deny', 'memory_save', '*secret*');
    const body = await jsonTurn(id, { messages: [user(`remember ${'x'.repeat(MAX_SUBJECT_CHARS)} secret`)] });
    expect(body.messages.find((message: any) => message.role === 'tool')).toMatchObject({ isError: true, content: expect.stringContaining('denied') });
  });
});

describe('promises kept', () => {
  it('keeps an idempotency key 24 h, however many turns come after', async () => {
    const id = newSessionId('keys');
    const send = (text: string, key?: string) =>
      fetchWorker(`/sessions/${id}/turns`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
        body: JSON.stringify({ messages: [user(text)] }),
      });
    const first = (await (await send('hello', 'key-1')).json()) as { turnId: string };
    for (const text of ['two', 'three', 'four']) await (await send(text)).arrayBuffer();
    // A prune that keeps one turn's log: the keyed turn is not that one, and its key is not a day old.
    await runInDurableObject(stubFor(id), (_instance, state) => new TurnStore(state.storage, new SessionMeta(state.storage)).prune(Date.now() - 86_400_000, 1));
    const again = await send('hello', 'key-1');
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(((await again.json()) as { turnId: string }).turnId).toBe(first.turnId);
    expect((await history(id)).filter((message) => message.role === 'user')).toHaveLength(4);
  });

  it('stores a 2.5 MB user message whole and reads it back byte for byte', async () => {
    const id = newSessionId('big-user');
    const content = 'ab€😀中'.repeat(Math.ceil(2_500_000 / 6));
    // The demo model's window cannot hold it (the turn stops with max_tokens): the history still does.
    await jsonTurn(id, { messages: [user(content)] });
    const stored = (await history(id))[0];
    expect(stored.content.length).toBe(content.length);
    expect(stored.content === content).toBe(true);
  });

  it('stores a 2.5 MB client tool result whole; the model gets it shortened, as the context rules say', async () => {
    const id = newSessionId('big-result');
    const tools = [{ name: 'weather', parameters: { type: 'object', properties: { location: { type: 'string' } } } }];
    const model = 'openai:replay/openai/gpt-4o-single-tool-call-usage';
    const first = await streamTurn(id, { messages: [user(`weather ${id}`)], tools, model });
    const call = first.of('tool_call')[0]!;
    const content = `${'°C'.repeat(1_250_000)}end`;
    const second = await streamTurn(id, { messages: [{ role: 'tool', toolCallId: call.toolCallId, content }], tools, model });
    expect(second.stop.stopReason).toBe('end_turn');
    const stored = (await history(id)).find((message) => message.role === 'tool');
    expect(stored.content.length).toBe(content.length);
    expect(stored.content === content).toBe(true);
    const [, resumed] = await sentWith(id);
    const sent = resumed.messages.at(-1);
    expect(sent.tool_call_id).toBe(call.toolCallId);
    // TOOL_RESULT_MAX_CHARS is 2,000 in the tests.
    expect(sent.content.length).toBeLessThan(2_500);
  });
});

describe('small defects', () => {
  it('names the models this deployment offers when a request names another (or forgets the provider)', async () => {
    const id = newSessionId('model');
    const response = await postTurn(id, { messages: [user('hi')], model: 'gpt-4o' });
    expect(response.status).toBe(400);
    const error = ((await response.json()) as any).error;
    expect(error.code).toBe('model_not_allowed');
    expect(error.message).toContain('"provider:model"');
    expect(error.message).toContain('openai:replay/openai/gpt-4o-text-usage');
    expect(error.details.allowedModels).toContain('openai:replay/openai/gpt-4o-text-usage');
    expect((await session(id)).status).toBe(404);
  });

  it('tells an OpenAI-compatible model, which has no error flag, that a tool call failed', async () => {
    const id = newSessionId('oa-error');
    const tools = [{ name: 'weather', parameters: { type: 'object', properties: { location: { type: 'string' } } } }];
    const model = 'openai:replay/openai/gpt-4o-single-tool-call-usage';
    const first = await streamTurn(id, { messages: [user(`weather ${id}`)], tools, model });
    const call = first.of('tool_call')[0]!;
    await streamTurn(id, { messages: [{ role: 'tool', toolCallId: call.toolCallId, content: 'the weather service is down', isError: true }], tools, model });
    const [, resumed] = await sentWith(id);
    expect(resumed.messages.at(-1).content).toBe('[The tool call failed] the weather service is down');
  });

  it('takes at most 16 followers of a running turn', async () => {
    const id = newSessionId('followers');
    const started = await postTurn(id, { messages: [user('call count_to {"to": 20, "delayMs": 200}')], stream: 'delta' });
    const reader = started.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const turnId = /"turnId":"([^"]+)"/.exec(first)![1]!;
    // The starting request and the sockets' listener are two; fourteen more fit.
    const followers: Response[] = [];
    for (let index = 0; index < 14; index++) {
      const response = await fetchWorker(`/sessions/${id}/turns/${turnId}/events`);
      expect(response.status).toBe(200);
      followers.push(response);
    }
    const refused = await fetchWorker(`/sessions/${id}/turns/${turnId}/events`);
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as any).error.code).toBe('too_many_followers');
    await reader.cancel();
    await Promise.all(followers.map((response) => response.body!.cancel()));
    await waitIdle(id);
  });
});
