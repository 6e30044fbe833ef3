/**
 * The first model request sent before the host's opening (src/agent/first-call.ts, `TurnDeps.opening`):
 * where it may go first (a client's results to place included), the provider is asked before the
 * opening, the turn tells nothing until the opening is done, and the step reads that request's answer
 * (the model is asked once); where it may not (an answer that runs or denies a call, a prompt past its
 * budget, a quota), the opening comes first and the model
 * after; an opening that fails ends the turn with no event and lets the request go.
 */
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/agent/events';
import { runTurn, type TurnDeps } from '../../src/agent/run-turn';
import type { ModelProvider, ModelRequest, ModelStreamPart } from '../../src/providers/types';
import { loopDeps, loopInput } from '../helpers/loop';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What happened, in order: the model asked, its stream let go, the opening, each event. */
function timeline() {
  const marks: string[] = [];
  const provider: ModelProvider = {
    async *stream() {
      marks.push('model asked');
      try {
        await sleep(1);
        const parts: ModelStreamPart[] = [{ type: 'text-delta', delta: 'hi' }, { type: 'finish', reason: 'end_turn' }];
        yield parts;
      } finally {
        marks.push('model let go');
      }
    },
  };
  return { marks, provider };
}

const deps = (provider: ModelProvider, marks: string[], overrides: Partial<TurnDeps> = {}) => loopDeps(provider, (event: AgentEvent) => marks.push(event.type), overrides);
const input = loopInput;

/** An opening that takes a while, as the session's does (a task, then its writes). */
const opening = (marks: string[]) => async (sent: boolean) => {
  marks.push(`opening (sent: ${sent})`);
  await sleep(2);
  marks.push('opened');
};

describe('the first model request, sent before the opening', () => {
  it('asks the model first, tells nothing until the opening is done, and reads that answer (one request)', async () => {
    const { marks, provider } = timeline();
    const outcome = await runTurn(input(), deps(provider, marks, { opening: opening(marks) }));
    expect(outcome.stopReason).toBe('end_turn');
    expect(marks.slice(0, 4)).toEqual(['model asked', 'opening (sent: true)', 'opened', 'turn-start']);
    expect(marks.filter((mark) => mark === 'model asked')).toHaveLength(1);
    expect(marks.indexOf('input-message')).toBeLessThan(marks.indexOf('model-call-start'));
    expect(marks).toContain('text-delta');
  });

  it('sends first with a client’s results too, placed as the turn places them: after their call, before the new messages', async () => {
    const { marks, provider } = timeline();
    const asked: ModelRequest[] = [];
    const watched: ModelProvider = { stream: (request) => (asked.push(request), provider.stream(request)) };
    const call = { toolCallId: 'call_a', name: 'lookup', input: {}, awaiting: 'client' as const };
    const history = [{ role: 'user' as const, content: 'look it up' }, { role: 'assistant' as const, content: [{ type: 'tool_use' as const, toolCallId: 'call_a', name: 'lookup', input: {} }] }];
    const outcome = await runTurn(input({ history, answers: [{ call, answer: { kind: 'result', content: 'found', isError: false } }] }), deps(watched, marks, { opening: opening(marks) }));
    expect(outcome.stopReason).toBe('end_turn');
    expect(marks.slice(0, 4)).toEqual(['model asked', 'opening (sent: true)', 'opened', 'turn-start']);
    expect(marks.slice(4, 6)).toEqual(['tool-answer', 'input-message']);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'user']);
  });

  it('opens first, and asks the model after its events, when an answer is a permission (a call to run, or rules to store)', async () => {
    const { marks, provider } = timeline();
    const call = { toolCallId: 'call_a', name: 'lookup', input: {}, awaiting: 'permission' as const };
    const history = [{ role: 'assistant' as const, content: [{ type: 'tool_use' as const, toolCallId: 'call_a', name: 'lookup', input: {} }] }];
    await runTurn(input({ history, answers: [{ call, answer: { kind: 'permission', granted: false } }] }), deps(provider, marks, { opening: opening(marks) }));
    expect(marks.slice(0, 3)).toEqual(['opening (sent: false)', 'opened', 'turn-start']);
    expect(marks.indexOf('model asked')).toBeGreaterThan(marks.indexOf('model-call-start'));
  });

  it('opens first when the prompt is past its budget (compaction comes before any call), or the user may call no model', async () => {
    const past = timeline();
    const long = Array.from({ length: 40 }, (_, index) => ({ role: index % 2 ? ('assistant' as const) : ('user' as const), content: 'words '.repeat(200) }));
    await runTurn(input({ history: long }), deps(past.provider, past.marks, { opening: opening(past.marks), context: { windowOverride: { byModel: {}, all: 4000 }, threshold: 0.8, toolResultMaxChars: 20_000 } }));
    expect(past.marks[0]).toBe('opening (sent: false)');

    const refused = timeline();
    const outcome = await runTurn(input(), deps(refused.provider, refused.marks, { opening: opening(refused.marks), quota: () => ({ code: 'quota_exceeded', message: 'over' }) }));
    expect(refused.marks[0]).toBe('opening (sent: false)');
    expect(refused.marks).not.toContain('model asked');
    expect(outcome.error?.code).toBe('quota_exceeded');
  });

  it('an opening that fails ends the turn with no event, and lets the request go', async () => {
    const { marks, provider } = timeline();
    const failing = async () => {
      marks.push('opening');
      throw new Error('storage failed');
    };
    await expect(runTurn(input(), deps(provider, marks, { opening: failing }))).rejects.toThrow('storage failed');
    await sleep(10);
    expect(marks).toEqual(['model asked', 'opening', 'model let go']);
  });

  it('a cancel during the opening stops the turn as cancelled, the request let go', async () => {
    const { marks, provider } = timeline();
    const controller = new AbortController();
    const cancelling = async () => controller.abort();
    const outcome = await runTurn(input(), deps(provider, marks, { opening: cancelling, signal: controller.signal }));
    expect(outcome.error?.code).toBe('cancelled');
    await sleep(10);
    expect(marks).toContain('model let go');
    expect(marks).not.toContain('text-delta');
  });

  it('without an opening, the turn tells its start at once, as before', async () => {
    const { marks, provider } = timeline();
    await runTurn(input(), deps(provider, marks));
    expect(marks[0]).toBe('turn-start');
    expect(marks.indexOf('model asked')).toBeGreaterThan(marks.indexOf('model-call-start'));
  });
});
