/**
 * Sub-agents (`agent_spawn`) for a session's turns: each runs in a session of its own (same user, an
 * id made from the caller's), bound by the caller's permission rules, its internal events streamed
 * back as JSON lines (checked by a schema as they come: they cross an RPC boundary) and reported as
 * they happen, its last answer returned. A cancel of the calling turn cancels the sub-agent's. One
 * turn starts at most `MAX_SUBAGENTS_PER_TURN` of them: each is a paid model call, and one model
 * answer may ask for any number; the calls past the cap get an error result the model reads.
 */
import { assistantText } from '../api/content';
import type { Config } from '../config';
import { newId } from '../lib/ids';
import type { PermissionRule } from '../tools/permission-rules';
import { ToolError, type SubagentRunner } from '../tools/types';
import type { Owner } from '../users/owner';
import type { DayTotals } from '../users/quota';
import { eventLines } from './event-lines';
import type { Result } from './result';

/** What a calling session needs of the child's object. */
export type ChildSession = {
  runSubagent(args: { sessionId: string; parentSessionId: string; task: string; model: string; rules: PermissionRule[]; today: DayTotals }): Promise<Result<{ body: ReadableStream<Uint8Array> }>>;
  cancelTurn(turnId: string): Promise<unknown>;
};

export function subagentRunner(caller: {
  sessionId: string;
  /** The child's session has the caller's owner: same user, same jurisdiction. */
  owner: Owner;
  model: string;
  rules: PermissionRule[];
  config: Config;
  child: (sessionId: string) => ChildSession;
  /** The user's totals today as the caller knows them: the child checks the quotas with them (docs/users.md). */
  today: () => DayTotals;
}): SubagentRunner {
  let spawned = 0;
  const { config } = caller;
  return async (task, report) => {
    if (spawned >= config.maxSubagentsPerTurn) {
      throw new ToolError(`This turn has started its ${config.maxSubagentsPerTurn} sub-agents, the most one turn may; do the rest without one, or in the next turn.`);
    }
    spawned++;
    const subagentId = newId('sub');
    const childId = `${caller.sessionId.slice(0, 64)}.${task.agentId}-${subagentId.slice(4, 16)}`;
    const child = caller.child(childId);
    const started = await child.runSubagent({ sessionId: childId, parentSessionId: caller.sessionId, task: task.task, model: caller.model, rules: caller.rules, today: caller.today() });
    if (!started.ok) throw new ToolError(`The sub-agent could not start: ${started.body.error.message}`);
    let turnId: string | undefined;
    const cancel = () => {
      if (turnId) void child.cancelTurn(turnId).catch(() => {});
    };
    task.signal.addEventListener('abort', cancel, { once: true });
    const outcome = { subagentId, sessionId: childId, text: '', stopReason: 'error' };
    try {
      for await (const event of eventLines(started.body)) {
        if (event.type === 'turn-start') {
          turnId = event.turnId;
          // The session exists now: the user may open it.
          if (task.exposeToUser) report({ kind: 'exposed', subagentId, agentId: task.agentId, sessionId: childId, label: task.agentId });
        }
        if (event.type === 'assistant-message') outcome.text = assistantText(event.message);
        if (event.type === 'turn-stop') outcome.stopReason = event.stopReason;
        report({ kind: 'event', source: `main/${task.agentId}`, sessionId: childId, event });
      }
    } finally {
      task.signal.removeEventListener('abort', cancel);
    }
    return outcome;
  };
}
