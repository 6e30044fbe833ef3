/**
 * The typed client (`client/`, issue 10 point 2) against the real Worker and Durable Objects: JSON
 * turns, streams that resume after a dropped connection (mid-stream, and before the turn was named),
 * cancel, and `run()` driving client tools and permission prompts to the end. Its types are checked
 * against the service's response schemas at compile time.
 */
import { describe, expect, it } from 'vitest';
import { createClient, TurnsApiError, type TurnEvent } from '../../client/src/index';
import type * as ClientTypes from '../../client/src/types';
import type { z } from '../../src/lib/zod';
import type { acceptedTurnSchema, branchViewSchema, messagesPageSchema, sessionViewSchema, turnBodySchema, TurnEvent as ServerTurnEvent } from '../../src/api/responses';
import type { TurnRequest, turnRequestSchema } from '../../src/api/turn-request';
import { callWorker, history, newSessionId } from '../helpers/api';

/** Compiles only if the two types are assignable both ways. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;
const typesAgree: [
  Same<ClientTypes.TurnBody, z.infer<typeof turnBodySchema>>,
  Same<ClientTypes.Session, z.infer<typeof sessionViewSchema>>,
  Same<ClientTypes.MessagesPage, z.infer<typeof messagesPageSchema>>,
  Same<WithoutId<TurnEvent>, ServerTurnEvent>,
  // What a client sends is the schema's input (defaults not yet filled in).
  Same<ClientTypes.TurnInput['messages'], z.input<ReturnType<typeof turnRequestSchema>>['messages']>,
  Same<NonNullable<ClientTypes.TurnInput['tools']>, NonNullable<TurnRequest['tools']>>,
  Same<ClientTypes.AcceptedTurn, z.infer<typeof acceptedTurnSchema>>,
  Same<NonNullable<ClientTypes.TurnInput['ifBusy']>, TurnRequest['ifBusy']>,
  Same<ClientTypes.Branch, z.infer<typeof branchViewSchema>>,
  Same<ClientTypes.TurnInput['parentId'], TurnRequest['parentId']>,
] = [true, true, true, true, true, true, true, true, true, true];

type Call = { method: string; url: string; lastEventId: string | null; idempotencyKey: string | null };

/**
 * The Worker's own fetch, with a log of the calls and a way to cut a response's body (`cut` gives
 * the chunks to pass) or to fail the request as an unreachable server does (`unreachable`).
 */
function workerFetch(cut?: (call: Call, index: number) => number | undefined, unreachable: number[] = []) {
  const calls: Call[] = [];
  const fetch = async (input: string, init: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const call = { method: request.method, url: request.url, lastEventId: request.headers.get('last-event-id'), idempotencyKey: request.headers.get('idempotency-key') };
    calls.push(call);
    if (unreachable.includes(calls.length - 1)) throw new TypeError('fetch failed');
    const response = await callWorker(request);
    const keep = cut?.(call, calls.length - 1);
    if (keep === undefined || !response.body) return response;
    return new Response(dropAfter(response.body, keep), response);
  };
  return { fetch, calls };
}

/** A body that passes `chunks` chunks, then fails as a dropped connection does. */
function dropAfter(body: ReadableStream<Uint8Array>, chunks: number): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let passed = 0;
  return new ReadableStream({
    async pull(controller) {
      if (passed >= chunks) {
        await reader.cancel();
        controller.error(new TypeError('network connection lost'));
        return;
      }
      const { done, value } = await reader.read();
      if (done) controller.close();
      else {
        passed++;
        controller.enqueue(value);
      }
    },
  });
}

const user = (content: string) => ({ role: 'user' as const, content });

describe('the typed client', () => {
  it('runs a JSON turn and reads the session', async () => {
    expect(typesAgree).toEqual([true, true, true, true, true, true, true, true, true, true]);
    const client = createClient({ baseUrl: 'http://localhost', fetch: workerFetch().fetch });
    const sessionId = newSessionId('client');
    const body = await client.turns.create(sessionId, { messages: [user('calculate 2+2')] });
    expect(body.stopReason).toBe('end_turn');
    expect(body.messages.map((m) => m.role)).toEqual(['assistant', 'tool', 'assistant']);
    const session = await client.sessions.get(sessionId);
    expect(session).toMatchObject({ sessionId, messageCount: 4, running: false });
    const page = await client.sessions.messages(sessionId, { limit: 2 });
    expect(page.messages).toHaveLength(2);
    expect(page.next).toBeDefined();
  });

  it('streams typed events to turn_stop', async () => {
    const client = createClient({ baseUrl: 'http://localhost', fetch: workerFetch().fetch });
    const events: TurnEvent[] = [];
    for await (const event of client.turns.stream(newSessionId('client'), { messages: [user('hello')] })) events.push(event);
    expect(events[0]?.event).toBe('turn_start');
    expect(events.at(-1)?.event).toBe('turn_stop');
    const stop = events.at(-1)!;
    if (stop.event === 'turn_stop') expect(stop.data.stopReason).toBe('end_turn');
  });

  it('resumes a stream that drops mid-turn from Last-Event-ID: every event once, in order', async () => {
    const sessionId = newSessionId('client');
    // The first response (the POST) drops after two chunks; the resumed one is whole.
    const { fetch, calls } = workerFetch((_call, index) => (index === 0 ? 2 : undefined));
    const client = createClient({ baseUrl: 'http://localhost', fetch, reconnect: { delayMs: 10 } });
    const events: TurnEvent[] = [];
    for await (const event of client.turns.stream(sessionId, { messages: [user('tell me slowly')], model: 'openai:script/slow' })) events.push(event);

    expect(calls.map((call) => call.method)).toEqual(['POST', 'GET']);
    expect(calls[1]!.url).toMatch(/\/turns\/turn_[0-9a-f]+\/events$/);
    expect(Number(calls[1]!.lastEventId)).toBeGreaterThan(0);
    const ids = events.map((event) => event.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    expect(events.filter((event) => event.event === 'turn_start')).toHaveLength(1);
    expect(events.at(-1)?.event).toBe('turn_stop');
    // The text put back together is the answer the session stored.
    const text = events.flatMap((event) => (event.event === 'text_delta' ? [event.data.delta] : [])).join('');
    const stored = (await history(sessionId)).at(-1);
    expect(typeof stored.content === 'string' ? stored.content : stored.content.find((block: any) => block.type === 'text').text).toBe(text);
  });

  it('tries again when a reconnection itself fails, as when the server is briefly out of reach', async () => {
    const sessionId = newSessionId('client');
    const { fetch, calls } = workerFetch((_call, index) => (index === 0 ? 2 : undefined), [1]);
    const client = createClient({ baseUrl: 'http://localhost', fetch, reconnect: { delayMs: 10 } });
    const events: TurnEvent[] = [];
    for await (const event of client.turns.stream(sessionId, { messages: [user('slowly')], model: 'openai:script/slow' })) events.push(event);
    expect(calls.map((call) => call.method)).toEqual(['POST', 'GET', 'GET']);
    expect(calls[2]!.lastEventId).toBe(calls[1]!.lastEventId);
    const ids = events.map((event) => event.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(events.at(-1)?.event).toBe('turn_stop');
  });

  it('retries a request cut before its turn was named with the same Idempotency-Key: one turn', async () => {
    const sessionId = newSessionId('client');
    const { fetch, calls } = workerFetch((_call, index) => (index === 0 ? 0 : undefined));
    const client = createClient({ baseUrl: 'http://localhost', fetch, reconnect: { delayMs: 10 } });
    const events: TurnEvent[] = [];
    for await (const event of client.turns.stream(sessionId, { messages: [user('hello')] })) events.push(event);
    expect(calls.map((call) => call.method)).toEqual(['POST', 'POST']);
    expect(calls[1]!.idempotencyKey).toBe(calls[0]!.idempotencyKey);
    expect(events[0]?.event).toBe('turn_start');
    expect(events.at(-1)?.event).toBe('turn_stop');
    expect((await history(sessionId)).map((m) => m.role)).toEqual(['user', 'assistant']);
  });

  it('gives up with stream_lost when every attempt drops', async () => {
    const { fetch } = workerFetch(() => 0);
    const client = createClient({ baseUrl: 'http://localhost', fetch, reconnect: { attempts: 2, delayMs: 5 } });
    const consume = async () => {
      for await (const _event of client.turns.stream(newSessionId('client'), { messages: [user('hello')] })) void _event;
    };
    await expect(consume()).rejects.toMatchObject({ code: 'stream_lost' });
  });

  it('cancels a running turn', async () => {
    const client = createClient({ baseUrl: 'http://localhost', fetch: workerFetch().fetch });
    const sessionId = newSessionId('client');
    let stop: TurnEvent | undefined;
    let cancelled = false;
    for await (const event of client.turns.stream(sessionId, { messages: [user('slow')], model: 'openai:script/slow' })) {
      // Once: a chunk the model sent while the cancel was on its way (150 ms apart) still comes after it.
      if (event.event === 'text_delta' && !cancelled) {
        cancelled = true;
        const turn = await client.sessions.get(sessionId);
        expect((await client.turns.cancel(sessionId, turn.runningTurnId!)).status).toBe('cancelled');
      }
      if (event.event === 'turn_stop') stop = event;
    }
    expect(stop?.event === 'turn_stop' && stop.data.error?.code).toBe('cancelled');
  });

  it('submits while a turn runs: queued (then followed) and steered', async () => {
    const client = createClient({ baseUrl: 'http://localhost', fetch: workerFetch().fetch });
    const sessionId = newSessionId('client');
    let queued: string | undefined;
    for await (const event of client.turns.stream(sessionId, { messages: [user('slow')], model: 'openai:script/slow' })) {
      if (event.event === 'text_delta' && !queued) {
        const steered = await client.turns.submit(sessionId, { messages: [user('also')], ifBusy: 'steer' });
        expect(steered).toMatchObject({ status: 'steered' });
        const accepted = await client.turns.submit(sessionId, { messages: [user('then this')], ifBusy: 'enqueue' });
        if (!('status' in accepted) || accepted.status !== 'queued') throw new Error('expected a queued turn');
        queued = accepted.turnId;
      }
    }
    const events: TurnEvent[] = [];
    for await (const event of client.turns.follow(sessionId, queued!)) events.push(event);
    expect(events.at(-1)?.event).toBe('turn_stop');
    const users = (await client.sessions.messages(sessionId)).messages.filter((message) => message.role === 'user').map((message) => message.content);
    expect(users).toEqual(['slow', 'also', 'then this']);
  });

  it('throws the API’s refusals as TurnsApiError with their code', async () => {
    const client = createClient({ baseUrl: 'http://localhost', fetch: workerFetch().fetch });
    const refused = client.turns.create(newSessionId('client'), { messages: [user('hi')], model: 'openai:gpt-9' });
    await expect(refused).rejects.toBeInstanceOf(TurnsApiError);
    await expect(refused).rejects.toMatchObject({ status: 400, code: 'model_not_allowed' });
    await expect(client.sessions.get('never-made')).rejects.toMatchObject({ status: 404, code: 'session_not_found' });
  });

  it('run() drives an exchange: a client tool by its handler, a permission by onPermission, to the answer', async () => {
    const client = createClient({ baseUrl: 'http://localhost', fetch: workerFetch().fetch });
    const sessionId = newSessionId('client');
    const asked: string[] = [];
    const seen: string[] = [];
    const result = await client.run(sessionId, {
      messages: [user('remember buy milk; call get_weather {"city":"Lisbon"}')],
      tools: {
        get_weather: {
          description: 'The weather in a city.',
          parameters: { type: 'object', properties: { city: { type: 'string' } } },
          run: (input) => `sunny in ${String(input.city)}`,
        },
      },
      onPermission: (call) => {
        asked.push(call.name);
        return { granted: true };
      },
      onEvent: (event) => seen.push(event.event),
    });
    expect(asked).toEqual(['memory_save']);
    expect(result.turns.map((turn) => turn.stopReason)).toEqual(['tool_use', 'end_turn']);
    expect(result.stop.stopReason).toBe('end_turn');
    expect(result.text).toContain('sunny in Lisbon');
    expect(result.text).toMatch(/Saved note/);
    expect(result.usage.outputTokens).toBeGreaterThan(0);
    expect(seen.filter((name) => name === 'turn_stop')).toHaveLength(2);

    // Denied, and a tool that throws: both reach the model as errors.
    const denied = await client.run(newSessionId('client'), {
      messages: [user('remember the code; call broken {}')],
      tools: {
        broken: {
          run: () => {
            throw new Error('the printer is on fire');
          },
        },
      },
      onPermission: () => ({ granted: false, reason: 'not today' }),
    });
    expect(denied.text).toContain('not today');
    expect(denied.text).toContain('the printer is on fire');
  });
});
