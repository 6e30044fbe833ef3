/**
 * The Durable Object of a (user, session) pair. The name holds both, so the same session id under
 * two users is two objects: no request of one user can reach another's session.
 */
import { sessionIdSchema } from '../api/turn-request';
import type { Env } from '../env';
import { ApiError } from '../lib/errors';
import type { SessionObject } from '../session/session-object';

/**
 * The session's RPC methods with their declared result types. workers-types maps RPC results to
 * "serializable" types and gives up (`never`) on fields typed `unknown` (tool inputs, error
 * details), though they are plain JSON values that structured clone carries as they are.
 */
export type SessionRpc = Pick<SessionObject, 'startTurn' | 'startAguiRun' | 'startHarnessRun' | 'runSubagent' | 'followTurn' | 'cancelTurn' | 'getSession' | 'getMessages' | 'deleteSession'>;

export function sessionStub(env: Env, userId: string, sessionId: string): SessionRpc {
  return env.SESSIONS.getByName(sessionObjectName(userId, sessionId)) as unknown as SessionRpc;
}

export function sessionObjectName(userId: string, sessionId: string): string {
  return JSON.stringify([userId, sessionId]);
}

/** The user a session object belongs to, read back from its name (`sessionObjectName`'s inverse). */
export function userOfObjectName(name: string | undefined): string {
  try {
    const parsed: unknown = JSON.parse(name ?? '');
    return Array.isArray(parsed) && typeof parsed[0] === 'string' ? parsed[0] : 'unknown';
  } catch {
    return 'unknown';
  }
}

export function parseSessionId(raw: string | undefined): string {
  const parsed = sessionIdSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ApiError(400, 'invalid_session_id', 'Session ids are 1 to 128 characters of letters, digits, ".", "_", ":" and "-".');
  }
  return parsed.data;
}
