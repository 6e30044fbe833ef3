/**
 * Where a user's objects live (docs/users.md): the token's `jurisdiction` claim, or the deployment's
 * DATA_JURISDICTION, routes every object of the user (sessions, sub-agents, forks, the user's own
 * object) to that jurisdiction's namespace. workerd has no jurisdictions, so the routing of names to
 * namespaces is checked against a recording namespace; the local fallback and the claims end to end.
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { Env } from '../../src/env';
import { inJurisdiction, ownerOfObjectName, sessionObject, sessionObjectName, userObject } from '../../src/users/owner';
import { callWorker, newSessionId } from '../helpers/api';
import { mint } from '../helpers/tokens';
import { newUser } from '../helpers/users';

/** A namespace that records where each name was asked for. */
function recordingNamespace(asked: string[], refusal?: string, where = 'global'): DurableObjectNamespace {
  return {
    jurisdiction(jurisdiction: string) {
      if (refusal) throw new Error(refusal);
      return recordingNamespace(asked, undefined, jurisdiction);
    },
    getByName(name: string) {
      asked.push(`${where} ${name}`);
      return {} as DurableObjectStub;
    },
  } as unknown as DurableObjectNamespace;
}

describe('names to namespaces', () => {
  it('routes a user’s sessions and own object to their jurisdiction, and names them with it', () => {
    const asked: string[] = [];
    const fake = { SESSIONS: recordingNamespace(asked), USERS: recordingNamespace(asked) } as unknown as Env;
    sessionObject(fake, { userId: 'ana', jurisdiction: 'eu' }, 's1');
    userObject(fake, { userId: 'ana', jurisdiction: 'eu' });
    sessionObject(fake, { userId: 'ana' }, 's1');
    userObject(fake, { userId: 'ana' });
    sessionObject(fake, { userId: 'gov', jurisdiction: 'fedramp' }, 's1');
    expect(asked).toEqual(['eu ["ana","s1","eu"]', 'eu ["ana","eu"]', 'global ["ana","s1"]', 'global ana', 'fedramp ["gov","s1","fedramp"]']);
  });

  it('reads the owner back from a session object’s name, so its sub-agents and user object follow it', () => {
    expect(ownerOfObjectName(sessionObjectName({ userId: 'ana', jurisdiction: 'eu' }, 's1'))).toEqual({ userId: 'ana', jurisdiction: 'eu' });
    expect(ownerOfObjectName(sessionObjectName('ana', 's1'))).toEqual({ userId: 'ana' });
    // A session stored before jurisdictions keeps its name.
    expect(sessionObjectName('ana', 's1')).toBe('["ana","s1"]');
  });

  it('falls back to the local namespace only where workerd has no jurisdictions; any other failure stands', () => {
    const asked: string[] = [];
    const local = recordingNamespace(asked, 'Jurisdiction restrictions are not implemented in workerd.');
    inJurisdiction(local, 'eu').getByName('x');
    expect(asked).toEqual(['global x']);
    const broken = recordingNamespace(asked, 'jurisdiction not enabled for this account');
    expect(() => inJurisdiction(broken, 'eu')).toThrow('not enabled');
  });
});

describe('the jurisdiction claim', () => {
  it('keeps an eu user’s sessions, sub-agents and list apart under names of their jurisdiction', async () => {
    const ana = await newUser('ana', { jurisdiction: 'eu' });
    const id = newSessionId('eu');
    const answer = await ana.turn(id, 'call agent_spawn {"agentId":"helper","task":"hello"}', { model: 'demo:demo' });
    expect(answer.status).toBe(200);
    const me = (await ana.json('/users/me')).body;
    expect(me).toMatchObject({ jurisdiction: 'eu', sessionCount: 2 });
    const child = (await ana.sessions()).sessions.find((entry: any) => entry.parentSessionId === id);
    // Under wrangler dev every object is local, but each is the one named for the eu user.
    const exists = (name: string) => runInDurableObject(env.SESSIONS.getByName(name), async (_instance, state) => state.storage.sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'meta'").toArray().length > 0);
    expect(await exists(sessionObjectName({ userId: ana.userId, jurisdiction: 'eu' }, id))).toBe(true);
    expect(await exists(sessionObjectName({ userId: ana.userId, jurisdiction: 'eu' }, child.sessionId))).toBe(true);
    expect(await exists(sessionObjectName(ana.userId, id))).toBe(false);
    // The same user without the claim is another place: nothing of theirs there.
    const plain = await newUser('plain');
    const token = await mint({ sub: ana.userId });
    const elsewhere = await callWorker(new Request('http://localhost/sessions', { headers: { authorization: `Bearer ${token}` } }));
    expect(((await elsewhere.json()) as any).sessions).toEqual([]);
    expect((await plain.sessions()).sessions).toEqual([]);
  });

  it('refuses an unknown jurisdiction with 401 and a sentence', async () => {
    for (const jurisdiction of ['mars', 'EU', 42, '']) {
      const token = await mint({ sub: 'someone', jurisdiction });
      const response = await callWorker(new Request('http://localhost/sessions', { headers: { authorization: `Bearer ${token}` } }));
      expect(response.status).toBe(401);
      const body = (await response.json()) as any;
      expect(body.error.code).toBe('invalid_token');
      expect(body.error.message).toMatch(/"jurisdiction" claim must be one of eu, fedramp, fedramp-high/);
    }
  });

  it('places users by DATA_JURISDICTION when their token names none; refuses a bad value as a configuration error', async () => {
    const token = await mint({ sub: `default-${newSessionId()}` });
    const me = await callWorker(new Request('http://localhost/users/me', { headers: { authorization: `Bearer ${token}` } }), { ...env, DATA_JURISDICTION: 'eu' });
    expect(((await me.json()) as any).jurisdiction).toBe('eu');
    const claimed = await mint({ sub: 'x', jurisdiction: 'fedramp' });
    const over = await callWorker(new Request('http://localhost/users/me', { headers: { authorization: `Bearer ${claimed}` } }), { ...env, DATA_JURISDICTION: 'eu' });
    expect(((await over.json()) as any).jurisdiction).toBe('fedramp');
    const bad = await callWorker(new Request('http://localhost/users/me', { headers: { authorization: `Bearer ${token}` } }), { ...env, DATA_JURISDICTION: 'moon' });
    expect(bad.status).toBe(500);
    expect(((await bad.json()) as any).error.code).toBe('configuration_error');
  });
});
