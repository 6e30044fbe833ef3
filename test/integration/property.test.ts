/**
 * Properties over random inputs: random request bodies never get a 5xx; random orders of valid and
 * invalid turns, through HTTP and the chat socket, with model output nested deep, huge, or spawning
 * sub-agents, never get a 5xx, never leave the session locked, never let a call past a deny rule
 * (its own or through a sub-agent), and never break the history's invariants (each tool call
 * answered exactly once, in call order, before the next model call; no tool_permission stored).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkHistoryInvariants, fetchWorker, history, newSessionId, postTurn, readSse, session } from '../helpers/api';
import { openSocket } from '../helpers/socket';

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
  // Model output that has locked sessions or bypassed rules: nested deep, huge, through a sub-agent.
  `call calculator {"expression":${'['.repeat(3000)}${']'.repeat(3000)}}`,
  `call calculator {"expression":"${'1+'.repeat(150_000)}1"}`,
  'call agent_spawn {"agentId":"p","task":"calculate 6*7"}',
  'calculate 6*7; call agent_spawn {"agentId":"q","task":"calculate 1+1; remember y"}',
];

type Action =
  | { kind: 'user'; prompt: string; stream: 'delta' | 'message' | 'none'; tools: boolean }
  | { kind: 'answer-all'; grant: boolean[]; followUp: boolean; reverse: boolean; denyCalculator: boolean }
  | { kind: 'socket'; prompt: string }
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
  fc.record({
    kind: fc.constant('answer-all' as const),
    grant: fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
    followUp: fc.boolean(),
    reverse: fc.boolean(),
    denyCalculator: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('socket' as const), prompt: fc.constantFrom(...PROMPTS) }),
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

const DENY_CALCULATOR = { tool_name: 'calculator', rule_content: '*', behavior: 'deny', source: 'session' };

/** A completion over the chat socket; its status is 200, or 4xx (5xx for `internal_error`) when a frame is refused. */
async function overSocket(sessionId: string, prompt: string): Promise<number> {
  const socket = await openSocket(sessionId);
  const settled = async (done: string): Promise<number> => {
    for (const deadline = Date.now() + 15_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 20))) {
      const error = socket.frames.find((frame) => frame.type === 'error');
      if (error) return error.code === 'internal_error' ? 500 : 400;
      if (socket.frames.some((frame) => frame.type === done)) return 200;
    }
    throw new Error(`no ${done} frame`);
  };
  socket.send({ type: 'append_message', role: 'user', content: prompt });
  const appended = await settled('message_appended');
  if (appended !== 200) return appended;
  socket.send({ type: 'request_completion', tools: [{ name: 'get_weather' }] });
  return settled('completion_done');
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
      const answers: Record<string, unknown>[] = pending.map((call, index) => answer(call, step.grant[index % 4]!));
      // A lasting rule rides on the first permission answer.
      const permission = answers.find((entry) => entry.role === 'tool_permission');
      if (step.denyCalculator && permission) permission.rule = DENY_CALCULATOR;
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
    case 'socket':
      return overSocket(sessionId, step.prompt);
  }
}

/** Whether a deny rule on calculator was set by this step: it answered a permission, and was taken. */
const setsDeny = (step: Action, status: number, askedPermission: boolean) => step.kind === 'answer-all' && step.denyCalculator && askedPermission && status === 200;

/** No call of calculator after `from` ran: its own results are errors, and no sub-agent's answer holds one that did. */
function checkDenied(messages: any[], from: number): void {
  const names = new Map<string, string>();
  for (const message of messages) {
    if (message.role === 'assistant' && Array.isArray(message.content)) {
      for (const block of message.content) if (block.type === 'tool_use') names.set(block.toolCallId, block.name);
    }
  }
  for (const message of messages.slice(from)) {
    if (message.role !== 'tool') continue;
    const name = names.get(message.toolCallId);
    if (name === 'calculator') expect(message.isError).toBe(true);
    if (name === 'agent_spawn') expect(String(message.content)).not.toMatch(/- calculator: -?\d/);
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
        let deniedFrom: number | undefined;
        for (const step of actions) {
          const before = (await history(id)).length;
          const askedPermission = ((await session(id)).body.pendingToolCalls ?? []).some((call: any) => call.awaiting === 'permission');
          const status = await perform(id, step);
          expect(status).toBeLessThan(500);
          const view = await session(id);
          // Never locked: every turn has ended once its request has its answer.
          if (view.status === 200) expect(view.body.running).toBe(false);
          if (deniedFrom === undefined && setsDeny(step, status, askedPermission)) deniedFrom = before;
          const messages = await history(id);
          // The rule binds every call made from the request that set it on.
          if (deniedFrom !== undefined) checkDenied(messages, deniedFrom);
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
    // Up to 25 × 8 turns, each checked by six reads: 6 s alone, past 20 s beside other files on a
    // loaded 2-core machine (seen in a clean-clone run). The limit guards against a hang; it measures nothing.
  }, 90_000);
});
