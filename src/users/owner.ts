/**
 * Who owns an object, and where it lives (docs/users.md): a user, and the Durable Object jurisdiction
 * that holds every object of theirs (sessions, sub-agents, forks, their own user object). The names
 * and namespaces of both kinds of object are made here, so that no path reaches an object of a user
 * outside that user's jurisdiction.
 */
import type { Env } from '../env';
import type { Jurisdiction } from './prices';
import type { UserObject } from './user-object';

export type Owner = { userId: string; jurisdiction?: Jurisdiction };

/**
 * The Durable Object of a (user, session) pair. The name holds both, so the same session id under
 * two users is two objects; a jurisdiction's objects name it too, so that a session can reach its
 * sub-agents and its user's object in the same one.
 */
export function sessionObjectName(owner: Owner | string, sessionId: string): string {
  const { userId, jurisdiction } = typeof owner === 'string' ? { userId: owner, jurisdiction: undefined } : owner;
  return JSON.stringify(jurisdiction ? [userId, sessionId, jurisdiction] : [userId, sessionId]);
}

/** The owner a session object belongs to, read back from its name (`sessionObjectName`'s inverse). */
export function ownerOfObjectName(name: string | undefined): Owner {
  try {
    const parsed: unknown = JSON.parse(name ?? '');
    if (Array.isArray(parsed) && typeof parsed[0] === 'string') {
      return typeof parsed[2] === 'string' ? { userId: parsed[0], jurisdiction: parsed[2] as Jurisdiction } : { userId: parsed[0] };
    }
  } catch {
    // not a session object's name
  }
  return { userId: 'unknown' };
}

/** What workerd (`wrangler dev`, the tests) answers `jurisdiction()` with: it keeps every object in one place. */
const LOCAL_REFUSAL = 'not implemented in workerd';
let warned = false;

/**
 * The namespace of a jurisdiction's objects of a binding (the binding itself without one). Under
 * `wrangler dev` the objects stay in the one local namespace (workerd has no jurisdictions), told once
 * in the log; their names still carry the jurisdiction, so they stay apart from the user's others.
 */
export function inJurisdiction<T extends Rpc.DurableObjectBranded | undefined>(namespace: DurableObjectNamespace<T>, jurisdiction: Jurisdiction | undefined): DurableObjectNamespace<T> {
  if (!jurisdiction) return namespace;
  try {
    return namespace.jurisdiction(jurisdiction);
  } catch (error) {
    if (!String(error).includes(LOCAL_REFUSAL)) throw error;
    if (!warned) console.warn(`Durable Object jurisdictions are not available locally: the "${jurisdiction}" objects live in the local namespace (docs/users.md).`);
    warned = true;
    return namespace;
  }
}

/** The user's object's name: their id, with the jurisdiction where there is one. */
export function userObjectName(owner: Owner): string {
  return owner.jurisdiction ? JSON.stringify([owner.userId, owner.jurisdiction]) : owner.userId;
}

/** The session object of an owner's session. */
export function sessionObject(env: Env, owner: Owner, sessionId: string) {
  return inJurisdiction(env.SESSIONS, owner.jurisdiction).getByName(sessionObjectName(owner, sessionId));
}

/** The user's own object: their list of sessions, their usage, their rate limit. */
export function userObject(env: Env, owner: Owner): DurableObjectStub<UserObject> {
  return inJurisdiction(env.USERS, owner.jurisdiction).getByName(userObjectName(owner));
}
