/**
 * Properties over random inputs: random request bodies never get a 5xx; random orders of valid and
 * invalid turns never get a 5xx and never break the history's invariants (each tool call answered
 * exactly once, in call order, before the next model call; no tool_permission stored).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkHistoryInvariants, fetchWorker, history, newSessionId, postTurn, readSse, session } from '../helpers/api';

const PROMPTS = [
  'hello',
  'calculate 2*3',
  'remember milk',
  'call get_weather {"location":"Lima"}',
  'calculate 1+1; remember y; call get_weather {}',
  'remember a; remember b',
  'demo:error',
  'demo:long',
  'demo:refuse',
  'list notes',
  'what time is it in Asia/Tokyo',
];

type Action =
  | { kind: 'user'; prompt: string; stream: 'delta' | 'message' | 'none'; tools: boolean }
  | { kind: 'answer-all'; grant: boolean[]; followUp: boolean; reverse: boolean }
  | { kind: 'answer-some' }
  | { kind: 'answer-wrong'; id: string; permission: boolean }
  | { kind: 'garbage'; body: unknown };

const action: fc.Arbitrary<Action> = fc.oneof(
  fc.record({
    kind: fc.constant('user' as const),
    prompt: fc.constantFrom(...PROMPTS),
    stream: fc.constantFrom('delta' as const, 'message' as const, 'none' as const),
    tools: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('answer-all' as const), grant: fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }), followUp: fc.boolean(), reverse: fc.boolean() }),
  fc.record({ kind: fc.constant('answer-some' as const) }),
  fc.record({ kind: fc.constant('answer-wrong' as const), id: fc.constantFrom('call_demo_1_0', 'call_nope', 'call_demo_3_2'), permission: fc.boolean() }),
  fc.record({ kind: fc.constant('garbage' as const), body: fc.oneof(fc.jsonValue(), fc.record({ messages: fc.array(fc.jsonValue(), { maxLength: 3 }) })) }),
);

async function send(sessionId: string, body: unknown): Promise<number> {
  const response = await postTurn(sessionId, body);
  if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
    const events = await readSse(response);
    expect(events.at(-1)?.event).toBe('turn_stop');
  } else {
    await response.arrayBuffer();
  }
  return response.status;
}

async function perform(sessionId: string, step: Action): Promise<number> {
  const pending: { toolCallId: string; awaiting: string }[] = (await session(sessionId)).body.pendingToolCalls ?? [];
  const answer = (call: { toolCallId: string; awaiting: string }, grant: boolean) =>
    call.awaiting === 'client'
      ? { role: 'tool', toolCallId: call.toolCallId, content: 'client result' }
      : { role: 'tool_permission', toolCallId: call.toolCallId, granted: grant };
  switch (step.kind) {
    case 'user':
      return send(sessionId, {
        messages: [{ role: 'user', content: step.prompt }],
        stream: step.stream,
        ...(step.tools ? { tools: [{ name: 'get_weather' }] } : {}),
      });
    case 'answer-all': {
      const answers = pending.map((call, index) => answer(call, step.grant[index % 4]!));
      if (step.reverse) answers.reverse();
      return send(sessionId, { messages: [...answers, ...(step.followUp ? [{ role: 'user', content: 'and now?' }] : [])] });
    }
    case 'answer-some':
      return send(sessionId, { messages: pending.slice(0, 1).map((call) => answer(call, true)).concat([{ role: 'user', content: 'x' }] as any) });
    case 'answer-wrong':
      return send(sessionId, {
        messages: [step.permission ? { role: 'tool_permission', toolCallId: step.id, granted: true } : { role: 'tool', toolCallId: step.id, content: 'x' }],
      });
    case 'garbage':
      return send(sessionId, step.body);
  }
}

describe('properties', () => {
  it('random request bodies never get a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), fc.constantFrom('application/json', 'text/plain', ''), async (body, type) => {
        const response = await fetchWorker(`/sessions/${newSessionId('fuzz')}/turns`, {
          method: 'POST',
          headers: type ? { 'content-type': type } : {},
          body: JSON.stringify(body),
        });
        await response.arrayBuffer();
        expect(response.status).toBeLessThan(500);
      }),
      { numRuns: 60 },
    );
  });

  it('random orders of valid and invalid turns keep the history sound and never get a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 8 }), async (actions) => {
        const id = newSessionId('prop');
        for (const step of actions) {
          const status = await perform(id, step);
          expect(status).toBeLessThan(500);
          const messages = await history(id);
          const pending = ((await session(id)).body.pendingToolCalls ?? []).map((call: any) => call.toolCallId);
          checkHistoryInvariants(messages, pending);
          // Only the last assistant message may wait for answers.
          const lastAssistant = messages.findLastIndex((m) => m.role === 'assistant');
          for (const toolCallId of pending) {
            const owner = messages.findIndex((m) => m.role === 'assistant' && Array.isArray(m.content) && m.content.some((b: any) => b.toolCallId === toolCallId));
            expect(owner).toBe(lastAssistant);
          }
        }
      }),
      { numRuns: 25 },
    );
  });
});
