/**
 * A2A v1.0's `ListTasks` (docs/a2a.md): a context's tasks, newest first, a page at a time. They are
 * the session's turns (`session/turn-list.ts`); each is read as `GetTask` reads it (its status
 * message, its history), without its artifacts unless `includeArtifacts` asks for them. A
 * context must be named: a task lives in its session, and no one place holds every session's turns.
 */
import { RPC_ERRORS, RpcError } from '../api/json-rpc';
import type { TurnSummary } from '../api/background-responses';
import { sessionIdSchema } from '../api/turn-request';
import type { Env } from '../env';
import { describeIssue } from '../lib/explain-issue';
import * as z from '../lib/zod';
import type { A2aTask } from '../protocol/a2a-encoder';
import type { Owner } from '../users/owner';
import { TASK_STATES, taskState } from './a2a-tasks';
import { sessionStub } from './session-stub';

const READ_AT_ONCE = 6;

const listSchema = z.looseObject({
  contextId: z.pipe(z.string({ error: 'required: this agent lists the tasks of one context (a session) at a time' }), sessionIdSchema),
  status: z.optional(z.union([z.string(), z.number()])),
  pageSize: z._default(z.int().check(z.gte(1), z.lte(100)), 50),
  pageToken: z.optional(z.string().check(z.regex(/^[0-9]{0,15}$/, 'not one this agent gave: send a page’s nextPageToken'))),
  statusTimestampAfter: z.optional(z.iso.datetime({ offset: true })),
  includeArtifacts: z.optional(z.boolean()),
});

/** `whole`: a task read as `GetTask` reads it (`undefined`: none such); `trim`: a task's history cut to `historyLength`. */
export async function listTasks(env: Env, owner: Owner, params: Record<string, unknown>, whole: (task: A2aTask) => Promise<A2aTask | undefined>, trim: (task: A2aTask) => A2aTask) {
  const parsed = listSchema.safeParse(params);
  if (!parsed.success) {
    const issue = describeIssue(parsed.error.issues[0]);
    throw new RpcError(RPC_ERRORS.invalidParams, `Invalid params: params.${issue.path}: ${issue.clause}.`);
  }
  const { contextId, status, pageSize, pageToken, statusTimestampAfter, includeArtifacts } = parsed.data;
  const named = typeof status === 'number' ? TASK_STATES[status] : TASK_STATES.find(([name]) => `TASK_STATE_${name}` === status);
  if (status !== undefined && !named) throw new RpcError(RPC_ERRORS.invalidParams, 'Invalid params: params.status: not a task state (TASK_STATE_COMPLETED, …).');
  const state = named?.[1];
  const empty = { tasks: [], nextPageToken: '', pageSize, totalSize: 0 };
  if (state === 'none') return empty;
  const listed = await sessionStub(env, owner, contextId).listTurns({
    limit: pageSize,
    count: true,
    ...(pageToken ? { cursor: Number(pageToken) } : {}),
    ...(state ? { state } : {}),
    ...(statusTimestampAfter ? { changedSince: Date.parse(statusTimestampAfter) } : {}),
  });
  // A context no turn has run in has no tasks yet.
  if (!listed.ok) {
    if (listed.status === 404) return empty;
    throw new RpcError(RPC_ERRORS.invalidParams, listed.body.error.message);
  }
  const read = async (task: A2aTask) => (await whole(task)) ?? task;
  const tasks: A2aTask[] = [];
  // A few logs read at a time: a page of 100 would hold 100 streams from one session at once.
  for (let at = 0; at < listed.turns.length; at += READ_AT_ONCE) {
    tasks.push(...(await Promise.all(listed.turns.slice(at, at + READ_AT_ONCE).map((turn) => read(taskOf(turn, contextId))))));
  }
  return {
    tasks: tasks.map((task) => trim(includeArtifacts ? task : { ...task, artifacts: [] })),
    nextPageToken: listed.next ?? '',
    pageSize,
    totalSize: listed.total ?? tasks.length,
  };
}

/** A turn as a task, by its state alone: a queued one, or one `GetTask` could not read. */
function taskOf(turn: TurnSummary, contextId: string): A2aTask {
  return { id: `${turn.turnId}:${contextId}`, contextId, status: { state: taskState(turn), timestamp: turn.endedAt ?? turn.startedAt ?? new Date().toISOString() }, artifacts: [], history: [] };
}
