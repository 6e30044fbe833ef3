/**
 * A stateful property of branches (docs/branches.md): random turns, edits, regenerations, refused
 * parents, activations, forks and restarts of every object, and after each step every branch reads
 * back as one valid conversation (its tool exchanges whole), exactly one is active, no message is
 * ever lost, and a model call sees the active branch alone (the recorded stand-in logs what it was
 * sent).
 */
import { abortAllDurableObjects } from 'cloudflare:test';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkHistoryInvariants, fetchWorker, newSessionId, postTurn, session, storedMessages } from '../helpers/api';
import { sentWith } from '../helpers/upstream-log';

const REPLAY = 'openai:replay/openai/gpt-4o-text-usage';
const PROMPTS = ['hello', 'calculate 2*3', 'remember milk', 'calculate 1+1; remember y', 'demo:error'];

type Action =
  | { kind: 'user'; prompt: string }
  | { kind: 'answer'; grant: boolean }
  | { kind: 'edit'; pick: number; replay: boolean }
  | { kind: 'regenerate'; pick: number }
  | { kind: 'activate'; pick: number }
  | { kind: 'fork'; pick: number; whole: boolean }
  | { kind: 'restart' };

const action: fc.Arbitrary<Action> = fc.oneof(
  fc.record({ kind: fc.constant('user' as const), prompt: fc.constantFrom(...PROMPTS) }),
  fc.record({ kind: fc.constant('answer' as const), grant: fc.boolean() }),
  fc.record({ kind: fc.constant('edit' as const), pick: fc.nat(), replay: fc.boolean() }),
  fc.record({ kind: fc.constant('regenerate' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('activate' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('fork' as const), pick: fc.nat(), whole: fc.boolean() }),
  fc.constant({ kind: 'restart' as const }),
);

const json = async (response: Response): Promise<any> => response.json();
const branchesOf = async (id: string): Promise<any[]> => (await json(await fetchWorker(`/sessions/${id}/branches`))).branches ?? [];

/** The calls of the last assistant message of a branch that have no result yet (what the branch still owes). */
function owedAtEnd(messages: any[]): string[] {
  const last = messages.findLastIndex((message) => message.role === 'assistant');
  if (last < 0 || !Array.isArray(messages[last].content)) return [];
  const answered = new Set(messages.slice(last + 1).map((message) => message.toolCallId));
  return messages[last].content.filter((block: any) => block.type === 'tool_use' && !answered.has(block.toolCallId)).map((block: any) => block.toolCallId);
}

/** Every branch read whole: one path each, a valid conversation, counted right; exactly one active. */
async function checkTree(id: string, seen: Set<string>): Promise<void> {
  const branches = await branchesOf(id);
  if (branches.length === 0) return;
  expect(branches.filter((branch) => branch.active)).toHaveLength(1);
  const present = new Set<string>();
  for (const branch of branches) {
    const messages = (await storedMessages(id, branch.leafId)).filter((message) => message.role !== 'compaction');
    expect(messages.at(-1).id).toBe(branch.leafId);
    expect(messages).toHaveLength(branch.messageCount);
    checkHistoryInvariants(messages, owedAtEnd(messages));
    for (const message of messages) present.add(message.id);
    if (branch.active) {
      expect((await storedMessages(id)).filter((message) => message.role !== 'compaction')).toEqual(messages);
      // The session's own count (kept between turns, counted on as messages are added) agrees.
      expect((await session(id)).body.messageCount).toBe(messages.length);
    }
  }
  // Nothing is lost: every message ever read is on some branch still.
  for (const messageId of seen) expect(present.has(messageId)).toBe(true);
  for (const messageId of present) seen.add(messageId);
}

async function perform(id: string, step: Action, counter: number): Promise<number> {
  const all = [...new Set((await Promise.all((await branchesOf(id)).map((branch) => storedMessages(id, branch.leafId)))).flat().map((message) => message.id).filter(Boolean))];
  const pick = (n: number) => all[n % Math.max(all.length, 1)] ?? 'msg_1';
  const send = async (body: unknown) => {
    const response = await postTurn(id, body);
    await response.arrayBuffer();
    return response.status;
  };
  switch (step.kind) {
    case 'user':
      return send({ messages: [{ role: 'user', content: step.prompt }] });
    case 'answer': {
      const pending = (await session(id)).body.pendingToolCalls ?? [];
      return send({ messages: pending.map((call: any) => ({ role: 'tool_permission', toolCallId: call.toolCallId, granted: step.grant })) });
    }
    case 'edit': {
      const marker = `${id}:${counter}`;
      const status = await send({ messages: [{ role: 'user', content: `edit ${marker}` }], parentId: pick(step.pick), ...(step.replay ? { model: REPLAY } : {}) });
      if (status === 200 && step.replay) {
        // The model saw the active branch and nothing else: the same user messages, in order.
        const sent = (await sentWith(marker)).at(-1);
        const users = (await storedMessages(id)).filter((message) => message.role === 'user').map((message) => message.content);
        expect(sent.messages.filter((message: any) => message.role === 'user').map((message: any) => message.content)).toEqual(users);
      }
      return status;
    }
    case 'regenerate':
      return send({ messages: [], parentId: pick(step.pick) });
    case 'activate': {
      const response = await fetchWorker(`/sessions/${id}/branches/${pick(step.pick)}/activate`, { method: 'POST' });
      await response.arrayBuffer();
      return response.status;
    }
    case 'fork': {
      const target = newSessionId('prop-fork');
      const response = await fetchWorker(`/sessions/${id}/fork`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ sessionId: target, ...(step.whole ? {} : { upTo: pick(step.pick) }) }),
      });
      await response.arrayBuffer();
      if (response.status === 201) {
        // The fork holds its source's branch up to where it was cut, as one line of its own.
        const copy = await storedMessages(target);
        checkHistoryInvariants(copy.filter((message) => message.role !== 'compaction'), []);
        await checkTree(target, new Set());
      }
      return response.status;
    }
    case 'restart':
      // Every object starts again: the active branch, the paths and the count a session keeps are read anew.
      await abortAllDurableObjects();
      return 200;
  }
}

describe('branches, as a property', () => {
  it('random turns, edits, regenerations, activations, forks and restarts keep every branch sound and lose nothing', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 2, maxLength: 10 }), async (actions) => {
        const id = newSessionId('prop-branch');
        const seen = new Set<string>();
        for (const [counter, step] of actions.entries()) {
          const status = await perform(id, step, counter);
          expect(status).toBeLessThan(500);
          const view = await session(id);
          if (view.status === 200) expect(view.body.running).toBe(false);
          await checkTree(id, seen);
        }
      }),
      { numRuns: 20 },
    );
  }, 180_000);
});
