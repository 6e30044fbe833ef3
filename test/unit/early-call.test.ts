/**
 * A step's model request sent early (src/agent/early-call.ts). The first before the host's opening (`TurnDeps.opening`):
 * where it may go first (a client's results to place included), the provider is asked before the
 * opening, the turn tells nothing until the opening is done, and the step reads that request's answer
 * (the model is asked once); where it may not (an answer that runs or denies a call, a prompt past its
 * budget, a quota), the opening comes first and the model
 * after; an opening that fails ends the turn with no event and lets the request go. A later step's
 * before what the step that ran its tools told (`TurnDeps.requestSent`, src/agent/held-events.ts):
 * that is held to the end of its task, and told, in order, once the request went.
 */
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/agent/events';
import { runTurn, type TurnDeps } from '../../src/agent/run-turn';
import type { ModelProvider, ModelRequest, ModelStreamPart } from '../../src/providers/types';
import type { UserMessage } from '../../src/api/content';
import { createToolRegistry } from '../../src/tools/registry';
import { loopDeps, loopInput, loopTool, sleep } from '../helpers/loop';


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

/** A model that calls `lookup` on its first call and answers text on every later one, each call marked. */
function toolTimeline() {
  const marks: string[] = [];
  const asked: ModelRequest[] = [];
  const provider: ModelProvider = {
    async *stream(request) {
      asked.push(request);
      marks.push(`model asked (${asked.length})`);
      const call = asked.length === 1;
      try {
        await sleep(1);
        yield call
          ? [{ type: 'tool-call-delta', index: 0, id: 'call_a', name: 'lookup', argumentsDelta: '{}' }, { type: 'usage', usage: { inputTokens: 10, outputTokens: 5 } }, { type: 'finish', reason: 'tool_use' }]
          : [{ type: 'text-delta', delta: 'done' }, { type: 'finish', reason: 'end_turn' }];
      } finally {
        marks.push(`model let go (${asked.length})`);
      }
    },
  };
  return { marks, asked, provider };
}

/** `lookup`, a trusted server tool that answers at once, or after `ms` (a task or more later). */
const lookup = (ms = 0) =>
  createToolRegistry([
    loopTool('lookup', async () => {
      if (ms > 0) await sleep(ms);
      return 'found';
    }),
  ]);

/** The host's wait after the request, as the session's (a task). */
const requestSent = (marks: string[]) => async () => {
  marks.push('request sent');
  await sleep(0);
};

const toolDeps = (marks: string[], provider: ModelProvider, overrides: Partial<TurnDeps> = {}) =>
  deps(provider, marks, { tools: lookup(), requestSent: requestSent(marks), spent: (call) => marks.push(`spent ${call.usage.inputTokens}`), ...overrides });

describe('a later step’s request, sent before the events of the step that ran its tools', () => {
  it('asks the model again before the step’s events are told, then tells them in their order (the usage at once)', async () => {
    const { marks, asked, provider } = toolTimeline();
    const outcome = await runTurn(input(), toolDeps(marks, provider));
    expect(outcome.stopReason).toBe('end_turn');
    expect(asked).toHaveLength(2);
    const second = marks.indexOf('model asked (2)');
    expect(marks.indexOf('spent 10')).toBeLessThan(second);
    expect(marks.slice(second, second + 8)).toEqual([
      'model asked (2)',
      'request sent',
      'assistant-message',
      'tool-call',
      'tool-execution-start',
      'tool-execution-end',
      'step-end',
      'step-start',
    ]);
    expect(marks.slice(second + 8, second + 10)).toEqual(['model-call-start', 'text-start']);
    expect(asked[1]!.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
  });

  it('tells at once what came in an earlier task than the request: a tool that takes its time is seen to run', async () => {
    const { marks, provider } = toolTimeline();
    await runTurn(input(), toolDeps(marks, provider, { tools: lookup(5) }));
    const second = marks.indexOf('model asked (2)');
    expect(marks.indexOf('tool-execution-start')).toBeLessThan(second);
    expect(marks.indexOf('assistant-message')).toBeLessThan(second);
    expect(marks.indexOf('tool-execution-end')).toBeGreaterThan(second);
  });

  it('holds nothing when the host does not wait (`requestSent` unset): the events, then the request', async () => {
    const { marks, provider } = toolTimeline();
    await runTurn(input(), deps(provider, marks, { tools: lookup() }));
    expect(marks.indexOf('model asked (2)')).toBeGreaterThan(marks.lastIndexOf('model-call-start'));
    expect(marks.indexOf('tool-execution-end')).toBeLessThan(marks.lastIndexOf('model-call-start'));
  });

  it('asks the quota first: a user the first call took over it is not asked of again', async () => {
    const { marks, asked, provider } = toolTimeline();
    let told = 0;
    const quota = () => (told > 0 ? { code: 'quota_exceeded', message: 'over' } : undefined);
    const outcome = await runTurn(input(), toolDeps(marks, provider, { spent: () => void told++, quota }));
    expect(asked).toHaveLength(1);
    expect(outcome.error?.code).toBe('quota_exceeded');
    expect(marks).not.toContain('request sent');
  });

  it('sends nothing early past the token budget: the turn stops there, as it would have', async () => {
    const { marks, asked, provider } = toolTimeline();
    const outcome = await runTurn(input(), toolDeps(marks, provider, { tokenBudget: 15 }));
    expect(asked).toHaveLength(1);
    expect(outcome.error?.code).toBe('budget_spent');
    expect(marks).toContain('tool-execution-end');
  });

  it('sends early with messages steered in: the request carries them, and the host hears they are told in the task their events come in', async () => {
    const { marks, asked, provider } = toolTimeline();
    const waiting: UserMessage[] = [{ role: 'user', content: 'and also' }];
    const steering = { take: () => (marks.push('steering taken'), waiting.splice(0)), told: () => void marks.push('steering told') };
    await runTurn(input(), toolDeps(marks, provider, { steering }));
    expect(asked[1]!.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    const second = marks.indexOf('model asked (2)');
    expect(marks.slice(second - 1, second + 3)).toEqual(['steering taken', 'model asked (2)', 'request sent', 'assistant-message']);
    const end = marks.indexOf('step-end');
    expect(end).toBeGreaterThan(second);
    expect(marks.slice(end, end + 4)).toEqual(['step-end', 'steering told', 'input-message', 'step-start']);
    expect(marks.filter((mark) => mark === 'steering told')).toHaveLength(1);
  });

  it('tells the host of steered messages as it takes them where it does not wait for the request (`requestSent` unset)', async () => {
    const { marks, asked, provider } = toolTimeline();
    const waiting: UserMessage[] = [{ role: 'user', content: 'and also' }];
    const steering = { take: () => (marks.push('steering taken'), waiting.splice(0)), told: () => void marks.push('steering told') };
    await runTurn(input(), deps(provider, marks, { tools: lookup(), steering }));
    expect(asked[1]!.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    const taken = marks.indexOf('steering taken');
    expect(marks.slice(taken, taken + 3)).toEqual(['steering taken', 'steering told', 'input-message']);
    expect(marks.indexOf('model asked (2)')).toBeGreaterThan(marks.indexOf('input-message'));
  });

  it('a cancel while the host waits lets the request go, and ends the turn with every event told', async () => {
    const { marks, provider } = toolTimeline();
    const controller = new AbortController();
    const cancelling = async () => {
      marks.push('request sent');
      controller.abort();
    };
    const outcome = await runTurn(input(), toolDeps(marks, provider, { requestSent: cancelling, signal: controller.signal }));
    expect(outcome.error?.code).toBe('cancelled');
    await sleep(10);
    expect(marks).toContain('model let go (2)');
    expect(marks.filter((mark) => mark === 'step-start')).toHaveLength(1);
    expect(marks.filter((mark) => !mark.startsWith('model ')).slice(-3)).toEqual(['tool-execution-end', 'step-end', 'turn-stop']);
  });

  it('a host whose listener throws at the end of a task ends the turn as an error, never an unhandled one', async () => {
    const { marks, provider } = toolTimeline();
    const emit = (event: AgentEvent) => {
      marks.push(event.type);
      if (event.type === 'tool-execution-start') throw new Error('storage failed');
    };
    const outcome = await runTurn(input(), loopDeps(provider, emit, { tools: lookup(5), requestSent: requestSent(marks) }));
    expect(outcome.error?.code).toBe('internal_error');
    expect(marks).not.toContain('model asked (2)');
    expect(marks.at(-1)).toBe('turn-stop');
  });
});
