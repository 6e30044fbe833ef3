/**
 * Resumable streams: every event of a turn has an increasing id; a client that drops mid-turn and
 * comes back with Last-Event-ID (or ?after=) gets every event it missed, exactly once, in order,
 * then the live turn to its turn_stop.
 */
import { abortAllDurableObjects } from 'cloudflare:test';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { describe, expect, it } from 'vitest';
import { fetchWorker, jsonTurn, newSessionId, postTurn, readSse, turn, user, waitIdle, type WireEvent } from '../helpers/api';

/** Reads `count` events from an SSE response, then drops the connection. */
async function readSome(response: Response, count: number): Promise<WireEvent[]> {
  const events: WireEvent[] = [];
  const reader = response.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
  while (events.length < count) {
    const { value, done } = await reader.read();
    if (done) break;
    events.push({ event: value.event ?? 'message', id: value.id, data: JSON.parse(value.data) });
  }
  await reader.cancel();
  return events;
}

const events = (sessionId: string, turnId: string, query = '', headers: Record<string, string> = {}) =>
  fetchWorker(`/sessions/${sessionId}/turns/${turnId}/events${query}`, { headers });

describe('resumable streams', () => {
  it('gives a client that dropped mid-turn every event exactly once, in order, then the live rest', async () => {
    const id = newSessionId('resume');
    const first = await readSome(await postTurn(id, { messages: [user('slow')], stream: 'delta', model: 'openai:script/slow' }), 4);
    const turnId = first[0]!.data.turnId as string;
    expect(first.map((e) => e.event)).toEqual(['turn_start', 'text_delta', 'text_delta', 'text_delta']);

    const rest = await readSse(await events(id, turnId, '', { 'last-event-id': first.at(-1)!.id! }));
    expect(rest.at(-1)).toMatchObject({ event: 'turn_stop', data: { stopReason: 'end_turn' } });
    const all = [...first, ...rest];
    const ids = all.map((e) => Number(e.id));
    expect(ids).toEqual([...new Set(ids)].sort((a, b) => a - b));
    expect(all.filter((e) => e.event === 'text_delta').map((e) => e.data.delta)).toEqual(Array.from({ length: 10 }, (_, i) => `part ${i}. `));

    // A replay from the start after the turn ended is the same sequence.
    const replay = await readSse(await events(id, turnId, '?after=0'));
    expect(replay).toEqual(all);
  });

  it('takes ?after= when there is no Last-Event-ID, and the header when there are both', async () => {
    const id = newSessionId('after');
    const result = await turn(id, { messages: [user('calculate 1+1')], stream: 'delta' });
    if (result.mode === 'none') throw new Error('expected a stream');
    const turnId = result.events[0]!.data.turnId as string;
    const cut = result.events[5]!.id!;
    const byQuery = await readSse(await events(id, turnId, `?after=${cut}`));
    expect(byQuery).toEqual(result.events.slice(6));
    const byHeader = await readSse(await events(id, turnId, '?after=0', { 'last-event-id': cut }));
    expect(byHeader).toEqual(result.events.slice(6));
  });

  it('speaks the mode asked for, defaulting to the turn’s own (delta for a JSON turn)', async () => {
    const id = newSessionId('modes');
    const body = (await (await postTurn(id, { messages: [user('hello')] })).json()) as { turnId: string };
    const asDelta = await readSse(await events(id, body.turnId));
    expect(asDelta.some((e) => e.event === 'text_delta')).toBe(true);
    const asMessage = await readSse(await events(id, body.turnId, '?stream=message'));
    expect(asMessage.map((e) => e.event)).toEqual(['turn_start', 'thinking', 'text', 'turn_stop']);
  });

  it('ends the events of a turn cut by a reset with turn_stop error "interrupted"', async () => {
    const id = newSessionId('cut');
    const first = await readSome(await postTurn(id, { messages: [user('slow')], stream: 'delta', model: 'openai:script/slow' }), 2);
    await abortAllDurableObjects();
    const rest = await readSse(await events(id, first[0]!.data.turnId, '', { 'last-event-id': first.at(-1)!.id! }));
    expect(rest.at(-1)).toMatchObject({ event: 'turn_stop', data: { stopReason: 'error', error: { code: 'interrupted' } } });
    await waitIdle(id);
  });

  it('answers 404 for an unknown turn, 400 for a bad Last-Event-ID or query', async () => {
    const id = newSessionId('bad');
    await turn(id, { messages: [user('hi')] });
    const unknown = await events(id, 'turn_000000000000000000000000');
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as any).error.code).toBe('turn_not_found');
    const body = await jsonTurn(id, { messages: [user('hi')] });
    const badHeader = await events(id, body.turnId, '', { 'last-event-id': 'abc' });
    expect(badHeader.status).toBe(400);
    await badHeader.arrayBuffer();
    const badQuery = await events(id, body.turnId, '?stream=none');
    expect(badQuery.status).toBe(400);
    await badQuery.arrayBuffer();
  });
});
