/**
 * The four policies under random interleavings: second messages sent while a slow turn runs, each
 * with a random policy, queued turns cancelled, the object evicted while turns wait. Whatever
 * happens, never a 5xx, calls stay paired, no message is stored twice, every message that was
 * accepted is stored once (or still waits in the queue), and every turn's events end with exactly one
 * turn_stop.
 */
import { abortAllDurableObjects, runDurableObjectAlarm } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sessionObjectName } from '../../src/http/session-stub';
import { checkHistoryInvariants, fetchWorker, history, newSessionId, postTurn, readSse, session, user } from '../helpers/api';
import { running } from '../helpers/busy';
import { readUntil } from '../helpers/read-until';

const POLICIES = ['reject', 'enqueue', 'interrupt', 'steer'] as const;
type Policy = (typeof POLICIES)[number];
type Step = { seconds: { policy: Policy; prompt: string }[]; cancelFirstQueued: boolean; evict: boolean };

const step: fc.Arbitrary<Step> = fc.record({
  seconds: fc.array(fc.record({ policy: fc.constantFrom(...POLICIES), prompt: fc.constantFrom('hello', 'calculate 2*3', 'remember x', 'what time is it') }), { minLength: 1, maxLength: 3 }),
  cancelFirstQueued: fc.boolean(),
  evict: fc.boolean(),
});

/** Until no turn runs and the queue is empty, or it waits for calls that are owed. */
async function settle(id: string): Promise<any> {
  for (let tries = 0; tries < 200; tries++) {
    const { status, body } = await session(id);
    if (status === 404) return body;
    if (!body.running && (body.queuedTurns.length === 0 || body.pendingToolCalls.length > 0)) return body;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`session ${id} never settled`);
}

/** Answers every call the session waits for (a denial or a client result), so that the queue goes on. */
async function answerAll(id: string): Promise<void> {
  const { status, body } = await session(id);
  if (status === 404 || body.pendingToolCalls.length === 0) return;
  const answers = body.pendingToolCalls.map((call: any) =>
    call.awaiting === 'client' ? { role: 'tool', toolCallId: call.toolCallId, content: 'done' } : { role: 'tool_permission', toolCallId: call.toolCallId, granted: false },
  );
  const response = await postTurn(id, { messages: answers });
  expect(response.status).toBeLessThan(500);
  await response.arrayBuffer();
}

/**
 * Answers what the session waits for and lets it settle, again and again until it waits for nothing:
 * the answers let the queue go on, and a queued turn may end owing calls of its own.
 */
async function quiesce(id: string): Promise<void> {
  for (let rounds = 0; rounds < 20; rounds++) {
    await answerAll(id);
    const body = await settle(id);
    if (!body?.pendingToolCalls?.length) return;
  }
  throw new Error(`session ${id} kept owing calls`);
}

describe('second messages under random interleavings', () => {
  it('keep every invariant, and never get a 5xx', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 3 }), async (steps) => {
        const id = newSessionId(`busy-prop-${++run}`);
        /** Each accepted message's text, to be found once in the history. */
        const accepted: string[] = [];
        let cancelled = 0;
        let marker = 0;
        for (const { seconds, cancelFirstQueued, evict } of steps) {
          await quiesce(id);
          const first = await running(id, `first ${++marker}`);
          accepted.push(`first ${marker}`);
          for (const { policy, prompt } of seconds) {
            const text = `${prompt} #${++marker}`;
            const response = await postTurn(id, { messages: [user(text)], ifBusy: policy, stream: 'none' });
            expect(response.status).toBeLessThan(500);
            await response.arrayBuffer();
            if (response.status === 200 || response.status === 202) accepted.push(text);
          }
          if (cancelFirstQueued) {
            const queued = (await session(id)).body.queuedTurns[0];
            if (queued) {
              const cancel = await fetchWorker(`/sessions/${id}/turns/${queued.turnId}/cancel`, { method: 'POST' });
              expect(cancel.status).toBeLessThan(500);
              await cancel.arrayBuffer();
              // Cancelled while it waited (its events: one turn_stop): its message is never stored.
              const events = await readSse(await fetchWorker(`/sessions/${id}/turns/${queued.turnId}/events`));
              if (cancel.status === 200 && events.length === 1) cancelled += 1;
            }
          }
          if (evict) {
            await abortAllDurableObjects();
            await first.rest.catch(() => []);
            await runDurableObjectAlarm(env.SESSIONS.getByName(sessionObjectName('local', id)));
          } else {
            await first.rest;
          }
          await settle(id);
          const view = (await session(id)).body;
          const stored = await history(id);
          checkHistoryInvariants(stored, view.pendingToolCalls.map((call: any) => call.toolCallId));
          const texts = stored.filter((message) => message.role === 'user').map((message) => message.content as string);
          // No message stored twice.
          expect(new Set(texts).size).toBe(texts.length);
          if (view.lastTurn?.status === 'queued') {
            // A queued turn waits while calls are owed (a turn it followed stopped for a permission):
            // its events come once the calls are answered, so following it now would wait for good.
            // It is in the queue, and a call is owed (what `settle` stopped for).
            expect(view.queuedTurns.map((queued: { turnId: string }) => queued.turnId)).toContain(view.lastTurn.turnId);
            expect(view.pendingToolCalls.length).toBeGreaterThan(0);
          } else if (view.lastTurn) {
            const events = await readSse(await fetchWorker(`/sessions/${id}/turns/${view.lastTurn.turnId}/events`));
            expect(events.filter((event) => event.event === 'turn_stop')).toHaveLength(1);
            expect(events.at(-1)!.event).toBe('turn_stop');
          }
        }
        // Every accepted message is stored, but those whose turn was cancelled while it waited. An
        // eviction loses nothing either: queued and steered messages are stored before they are taken;
        // only the cut turn's own first message may end with it, stored or not, as the turn got.
        await quiesce(id);
        const texts = (await history(id)).filter((message) => message.role === 'user').map((message) => message.content as string);
        const waiting = (await session(id)).body.queuedTurns.length;
        const missing = accepted.filter((text) => !texts.includes(text));
        expect(missing.length).toBeLessThanOrEqual(cancelled + waiting);
      }),
      {
        numRuns: 6,
        // Found by this property: a queued turn's message lost to an eviction, when a queued turn stored
        // what it opens with a task after it left the queue (docs/decisions.md, 43). Run every time.
        examples: [[[{ seconds: [{ policy: 'enqueue', prompt: 'hello' }, { policy: 'interrupt', prompt: 'hello' }], cancelFirstQueued: false, evict: true }]]],
      },
    );
    // Each step waits out a slow turn (about 1.5 s) and what it queued: minutes under a loaded CI.
  }, 180_000);

  it('a message steered into a tool’s step is stored once, whenever the object is evicted', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 380, max: 520 }), async (evictAfterMs) => {
        const id = newSessionId(`steer-evict-${++run}`);
        const response = await postTurn(id, { messages: [user('count it')], model: 'openai:script/count', stream: 'delta' });
        expect(response.status).toBe(200);
        const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
        // `count_to` takes 450 ms; the message goes in the next request, which may leave before it is
        // stored (docs/decisions.md, 44), and leaves the queue in the same commit as it is stored.
        await readUntil(reader, (parts) => parts.join('').includes('event: tool_call'), 'the tool call');
        const steered = await postTurn(id, { messages: [user('and this')], ifBusy: 'steer' });
        expect(steered.status).toBe(202);
        await steered.arrayBuffer();
        await new Promise((resolve) => setTimeout(resolve, evictAfterMs));
        await abortAllDurableObjects();
        await reader.cancel().catch(() => {});
        await runDurableObjectAlarm(env.SESSIONS.getByName(sessionObjectName('local', id)));
        await quiesce(id);
        const stored = await history(id);
        checkHistoryInvariants(stored);
        // Told in the turn, or run as a turn of its own after the eviction: once, either way.
        expect(stored.filter((message) => message.role === 'user' && message.content === 'and this')).toHaveLength(1);
        expect((await session(id)).body.queuedTurns).toEqual([]);
      }),
      {
        numRuns: 8,
        // Around the tool's end, where the next request leaves a task before the message is stored; an
        // eviction at 441 ms lost it when it left the queue in the request's own task. Also before, after.
        examples: [[0], [441], [700]],
      },
    );
  }, 120_000);
});
