/**
 * Cancellation: the abort reaches the upstream request, the partial text is stored, the stream ends
 * with turn_stop error "cancelled", and the session is usable at once.
 */
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { describe, expect, it } from 'vitest';
import { checkHistoryInvariants, fetchWorker, history, jsonTurn, newSessionId, postTurn, session, turn, user } from '../helpers/api';
import { readUntil } from '../helpers/read-until';
import { abortedWith } from '../helpers/upstream-log';

const cancel = (sessionId: string, turnId: string) => fetchWorker(`/sessions/${sessionId}/turns/${turnId}/cancel`, { method: 'POST' });

describe('cancel', () => {
  it('stops the running turn, keeps its partial text, and frees the session at once', async () => {
    const id = newSessionId('cancel');
    const response = await postTurn(id, { messages: [user(`slow ${id}`)], stream: 'delta', model: 'openai:script/slow' });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
    const seen: { event?: string; data: string }[] = await readUntil(reader, (events) => events.filter((e) => e.event === 'text_delta').length >= 2, 'two text_deltas');
    const turnId = JSON.parse(seen[0]!.data).turnId;

    const cancelled = await cancel(id, turnId);
    expect(cancelled.status).toBe(200);
    expect(await cancelled.json()).toEqual({ turnId, status: 'cancelled', stopReason: 'error' });

    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      seen.push(value);
    }
    const last = seen.at(-1)!;
    expect(last.event).toBe('turn_stop');
    expect(JSON.parse(last.data)).toMatchObject({ stopReason: 'error', error: { code: 'cancelled' } });

    const stored = await history(id);
    expect(stored[1].role).toBe('assistant');
    expect(stored[1].content).toMatch(/^part 0\. part 1\. /);
    expect(stored[1].content).not.toContain('part 9.');
    checkHistoryInvariants(stored);
    expect((await session(id)).body).toMatchObject({ running: false, lastTurn: { status: 'cancelled', errorCode: 'cancelled' } });

    // The abort reached the upstream request.
    expect(await abortedWith(id)).not.toHaveLength(0);

    expect((await turn(id, { messages: [user('next')] })).status).toBe(200);
  });

  it('answers 409 turn_not_running for a turn that ended, 404 for one that does not exist', async () => {
    const id = newSessionId('cancel-done');
    const body = await jsonTurn(id, { messages: [user('hi')] });
    const done = await cancel(id, body.turnId);
    expect(done.status).toBe(409);
    expect(((await done.json()) as any).error).toMatchObject({ code: 'turn_not_running', details: { status: 'finished' } });
    const missing = await cancel(id, 'turn_000000000000000000000000');
    expect(missing.status).toBe(404);
    await missing.arrayBuffer();
    const malformed = await cancel(id, 'nope');
    expect(malformed.status).toBe(404);
    await malformed.arrayBuffer();
  });
});
