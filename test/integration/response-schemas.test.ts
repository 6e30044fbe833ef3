/**
 * The response schemas (`src/api/responses.ts`, the source of the OpenAPI document and the client's
 * types) say what the Worker sends: real answers of every kind parse with them, strictly.
 */
import { describe, expect, it } from 'vitest';
import { cancelledTurnSchema, errorBodySchema, messagesPageSchema, sessionViewSchema, turnBodySchema, turnEventSchemas, type TurnEventName } from '../../src/api/responses';
import { fetchWorker, newSessionId, postTurn, readSse, user, waitIdle } from '../helpers/api';

const MESSAGES = ['hello', 'calculate 2*3; what time is it', 'remember milk', 'call lookup {"q":1}', 'demo:refuse', 'demo:long', 'demo:error'];
const tools = [{ name: 'lookup', parameters: { type: 'object', properties: {} } }];

function strict(schema: { safeParse(value: unknown): { success: boolean; error?: { message: string } } }, value: unknown, what: string): void {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new Error(`${what} does not match its schema: ${parsed.error?.message}\n${JSON.stringify(value)}`);
}

describe('response schemas', () => {
  it.each(['delta', 'message'] as const)('every SSE event of stream "%s" matches the schema of its name', async (mode) => {
    const seen = new Set<string>();
    for (const text of MESSAGES) {
      const events = await readSse(await postTurn(newSessionId('schema'), { messages: [user(text)], stream: mode, tools }));
      for (const event of events) {
        expect(Object.keys(turnEventSchemas)).toContain(event.event);
        strict(turnEventSchemas[event.event as TurnEventName], event.data, `${mode} ${event.event}`);
        seen.add(event.event);
      }
    }
    const expected = mode === 'delta' ? ['text_delta', 'thinking_delta'] : ['text', 'thinking'];
    expect([...seen].sort()).toEqual(['tool_call', 'tool_result', 'turn_start', 'turn_stop', ...expected].sort());
  });

  it('the JSON body, the session, its messages, a cancel and errors match theirs', async () => {
    const sessionId = newSessionId('schema');
    for (const text of MESSAGES) {
      const response = await postTurn(sessionId, { messages: [user(text)], tools });
      const body = await response.json();
      if (response.status === 200) strict(turnBodySchema, body, `turn body for ${text}`);
      else strict(errorBodySchema, body, `error for ${text}`);
      const view = await (await fetchWorker(`/sessions/${sessionId}`)).json();
      strict(sessionViewSchema, view, 'session');
      // Answer what waits, so that the next message is accepted.
      const pending = (view as any).pendingToolCalls as { toolCallId: string; awaiting: string }[];
      if (pending.length > 0) {
        const answers = pending.map((call) => (call.awaiting === 'client' ? { role: 'tool', toolCallId: call.toolCallId, content: 'ok' } : { role: 'tool_permission', toolCallId: call.toolCallId, granted: true }));
        strict(turnBodySchema, await (await postTurn(sessionId, { messages: answers, tools })).json(), 'answers');
      }
    }
    strict(messagesPageSchema, await (await fetchWorker(`/sessions/${sessionId}/messages?limit=3`)).json(), 'messages page');

    const slow = await postTurn(sessionId, { messages: [user('slow')], stream: 'delta', model: 'openai:script/slow' });
    const reader = slow.body!.getReader();
    await reader.read();
    const view = (await (await fetchWorker(`/sessions/${sessionId}`)).json()) as { runningTurnId: string };
    strict(sessionViewSchema, view, 'running session');
    strict(cancelledTurnSchema, await (await fetchWorker(`/sessions/${sessionId}/turns/${view.runningTurnId}/cancel`, { method: 'POST' })).json(), 'cancel');
    await reader.cancel();
    await waitIdle(sessionId);

    for (const path of ['/sessions/nope/messages', '/nope', '/sessions/a%20b']) strict(errorBodySchema, await (await fetchWorker(path)).json(), path);
  });
});
