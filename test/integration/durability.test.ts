/**
 * A started turn runs to completion and is stored when the client goes away; a turn cut short by a
 * reset of the Durable Object (eviction, deploy, crash) is closed on the next wake, never left locked
 * or with an unanswered tool call.
 */
import { env } from 'cloudflare:workers';
import { LOCAL_USER } from '../../src/http/auth';
import { sessionObjectName } from '../../src/http/session-stub';
import { abortAllDurableObjects, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { HistoryStore } from '../../src/session/store/history';
import { TurnStore } from '../../src/session/store/turns';
import { checkHistoryInvariants, history, newSessionId, postTurn, session, turn, user, waitIdle } from '../helpers/api';

describe('durability', () => {
  it('finishes and stores a turn whose client went away mid-stream', async () => {
    const id = newSessionId('gone');
    const response = await postTurn(id, { messages: [user('slow')], stream: 'delta', model: 'openai:script/slow' });
    const reader = response.body!.getReader();
    await reader.read(); // turn_start arrived
    await reader.cancel(); // and the client leaves

    const summary = await waitIdle(id);
    expect(summary.lastTurn).toMatchObject({ status: 'finished', stopReason: 'end_turn' });
    const stored = await history(id);
    expect(stored[1]).toEqual({ role: 'assistant', content: Array.from({ length: 10 }, (_, i) => `part ${i}. `).join('') });
  });

  it('closes a turn cut by a reset of the object: unlocked, marked interrupted, and the next turn works', async () => {
    const id = newSessionId('reset');
    const response = await postTurn(id, { messages: [user('slow')], stream: 'delta', model: 'openai:script/slow' });
    const reader = response.body!.getReader();
    await reader.read();
    await abortAllDurableObjects();
    await reader.cancel().catch(() => {});

    const { body } = await session(id);
    expect(body.running).toBe(false);
    expect(body.lastTurn).toMatchObject({ status: 'failed', stopReason: 'error', errorCode: 'interrupted' });
    expect(await history(id)).toEqual([{ role: 'user', content: 'slow' }]);
    const next = await turn(id, { messages: [user('hello')] });
    expect(next.status).toBe(200);
  });

  it('gives the tool calls a cut turn was running an error result, and keeps the waiting ones pending', async () => {
    const id = newSessionId('reset-tools');
    const stub = env.SESSIONS.getByName(sessionObjectName(LOCAL_USER, id));
    await runInDurableObject(stub, async (_instance, state) => {
      // The state a turn leaves when it is cut while running a trusted call next to an untrusted one.
      const store = new HistoryStore(state.storage);
      store.meta.ensureCreated(id);
      new TurnStore(state.storage, store.meta).beginTurn('turn_cut', 'demo:demo', 'delta');
      store.appendMessage('turn_cut', { role: 'user', content: 'calculate 1+1; remember x' });
      store.appendAssistant('turn_cut', {
        role: 'assistant',
        content: [
          { type: 'tool_use', toolCallId: 'call_run', name: 'calculator', input: { expression: '1+1' } },
          { type: 'tool_use', toolCallId: 'call_wait', name: 'memory_save', input: { text: 'x' } },
        ],
      });
      store.setCallState('call_wait', 'untrusted', 'waiting');
    });
    await abortAllDurableObjects();

    const { body } = await session(id);
    expect(body.lastTurn).toMatchObject({ turnId: 'turn_cut', status: 'failed', errorCode: 'interrupted' });
    expect(body.pendingToolCalls.map((call: any) => call.toolCallId)).toEqual(['call_wait']);
    const stored = await history(id);
    expect(stored[2]).toEqual({ role: 'tool', toolCallId: 'call_run', content: 'Tool execution was interrupted', isError: true });
    checkHistoryInvariants(stored, ['call_wait']);

    const resumed = await turn(id, { messages: [{ role: 'tool_permission', toolCallId: 'call_wait', granted: false }] });
    expect(resumed.status).toBe(200);
    checkHistoryInvariants(await history(id));
  });
});
