/**
 * `agent_spawn` (docs/harness.md): hands a task to a sub-agent, which runs in a session of its own
 * (its own Durable Object), and returns its answer and its session id. Its events are forwarded to
 * the caller's stream as they happen (the Harness door tells them with `source: "main/<agentId>"`);
 * with `expose_to_user`, its session is announced to the user (`SUBAGENT_EXPOSED`), who can open it
 * like any other. A sub-agent cannot spawn sub-agents of its own.
 */
import * as z from '../lib/zod';
import { ToolError, type ServerTool } from './types';

const inputSchema = z.strictObject({
  agentId: z.withMeta(z.string().check(z.regex(/^[A-Za-z0-9_-]{1,40}$/)), { description: 'Which sub-agent: a short name for its role, such as "researcher".' }),
  task: z.withMeta(z.string().check(z.minLength(1), z.maxLength(4000)), { description: 'What the sub-agent is to do, in full: it sees nothing else of this conversation.' }),
  expose_to_user: z.withMeta(z._default(z.boolean(), false), { description: "Whether the user gets the sub-agent's session to open and continue." }),
});

export const agentSpawnTool: ServerTool<z.infer<typeof inputSchema>> = {
  name: 'agent_spawn',
  description: 'Runs a sub-agent on a task in a session of its own and returns its answer and session id.',
  trust: true,
  inputSchema,
  permissionSubject: (input) => String(input.agentId ?? ''),
  async execute({ agentId, task, expose_to_user }, context) {
    if (!context.subagents) throw new ToolError('Sub-agents are not available here.');
    const outcome = await context.subagents({ agentId, task, exposeToUser: expose_to_user, signal: context.signal }, (report) => context.report?.(report));
    const answer = outcome.text === '' ? '(no text)' : outcome.text;
    return `Sub-agent ${agentId} (session ${outcome.sessionId}) stopped with ${outcome.stopReason}: ${answer}`;
  },
};
