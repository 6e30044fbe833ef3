/**
 * The Worker's way to a session's Durable Object: the object of a (user, session) pair (its name,
 * `src/session/object-name.ts`, holds both, so no request of one user can reach another's session),
 * and the session id of a route, checked.
 */
import { sessionIdSchema } from '../api/turn-request';
import type { Env } from '../env';
import { ApiError } from '../lib/errors';
import { sessionObjectName } from '../session/object-name';
import type { SessionObject } from '../session/session-object';

/** Where a session's object is named (the tests and the bench name it too). */
export { sessionObjectName, userOfObjectName } from '../session/object-name';

/**
 * The session's RPC methods with their declared result types. workers-types maps RPC results to
 * "serializable" types and gives up (`never`) on fields typed `unknown` (tool inputs, error
 * details), though they are plain JSON values that structured clone carries as they are.
 */
export type SessionRpc = Pick<SessionObject, 'startTurn' | 'startAguiRun' | 'startHarnessRun' | 'runSubagent' | 'followTurn' | 'cancelTurn' | 'getSession' | 'getMessages' | 'deleteSession' | 'getBranches' | 'activateBranch' | 'exportBranch' | 'importFork'>;

export function sessionStub(env: Env, userId: string, sessionId: string): SessionRpc {
  return env.SESSIONS.getByName(sessionObjectName(userId, sessionId)) as unknown as SessionRpc;
}

export function parseSessionId(raw: string | undefined): string {
  const parsed = sessionIdSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ApiError(400, 'invalid_session_id', 'Session ids are 1 to 128 characters of letters, digits, ".", "_", ":" and "-".');
  }
  return parsed.data;
}
