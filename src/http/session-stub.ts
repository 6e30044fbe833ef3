/**
 * The Worker's way to a session's Durable Object: the object of a (user, session) pair (its name,
 * `src/users/owner.ts`, holds both, so no request of one user can reach another's session), in the
 * user's jurisdiction, and the session id of a route, checked.
 */
import { SESSION_ID, SESSION_ID_RULE } from '../api/turn-fields';
import type { Env } from '../env';
import { ApiError } from '../lib/errors';
import type { SessionObject } from '../session/session-object';
import { sessionObject, type Owner } from '../users/owner';

/** Where a session's object is named (the tests and the bench name it too). */
export { sessionObjectName } from '../users/owner';

/**
 * The session's RPC methods with their declared result types. The runtime types map RPC results to
 * "serializable" types and give up (`never`) on fields typed `unknown` (tool inputs, error
 * details), though they are plain JSON values that structured clone carries as they are.
 */
export type SessionRpc = Pick<
  SessionObject,
  | 'startTurn' | 'startAguiRun' | 'startHarnessRun' | 'runSubagent' | 'followTurn' | 'cancelTurn' | 'getSession' | 'getMessages' | 'deleteSession'
  | 'getBranches' | 'activateBranch' | 'exportBranch' | 'importFork' | 'exportForUser' | 'eraseForUser'
  | 'getTurn' | 'listTurns' | 'getDeliveries' | 'createSchedule' | 'getSchedules' | 'deleteSchedule' | 'startEventsRun'
>;

/** The session object of the owner's session, in the owner's jurisdiction. */
export function sessionStub(env: Env, owner: Owner, sessionId: string): SessionRpc {
  return sessionObject(env, owner, sessionId) as unknown as SessionRpc;
}

/** The session id of a route, checked against the pattern `sessionIdSchema` is made of (without zod: every route reads one). */
export function parseSessionId(raw: string | undefined): string {
  if (raw === undefined || !SESSION_ID.test(raw)) throw new ApiError(400, 'invalid_session_id', SESSION_ID_RULE);
  return raw;
}
