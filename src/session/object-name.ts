/**
 * The Durable Object of a (user, session) pair. The name holds both, so the same session id under
 * two users is two objects: no request of one user can reach another's session.
 */
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
