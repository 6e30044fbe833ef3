/**
 * The user's object out of reach (docs/users.md): a session's reports wait in its outbox and are sent
 * again by its alarm, so a turn never waits on them for long or fails for them, and the list and the
 * counters are exact once the user's object is back, never counted twice.
 */
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it, vi } from 'vitest';
import type { SessionObject } from '../../src/session/session-object';
import type { UserReports } from '../../src/session/user-link';
import { sessionObject, userObject } from '../../src/users/owner';
import { newSessionId } from '../helpers/api';
import { newUser, PRICED, usageSettles, type TestUser } from '../helpers/users';
import { partsOf } from '../helpers/session-parts';

type Link = { host: { user: () => UserReports } };
const linkOf = (instance: SessionObject) => partsOf<{ users: Link }>(instance).users;

/** Puts a stand-in between the session and its user's object; returns how to take it away. */
async function intercept(user: TestUser, sessionId: string, stand: (real: UserReports) => UserReports): Promise<() => Promise<void>> {
  const stub = sessionObject(env, { userId: user.userId }, sessionId);
  let real: (() => UserReports) | undefined;
  await runInDurableObject(stub, async (instance: SessionObject) => {
    const link = linkOf(instance);
    real = link.host.user;
    const original = real;
    link.host.user = () => stand(original());
  });
  return () =>
    runInDurableObject(stub, async (instance: SessionObject) => {
      linkOf(instance).host.user = real!;
    });
}

const outboxSize = (user: TestUser, sessionId: string) =>
  runInDurableObject(sessionObject(env, { userId: user.userId }, sessionId), async (_instance, state) =>
    state.storage.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM user_outbox').one().n,
  );

describe('reports to an unreachable user object', () => {
  it('a turn completes while the user’s object is unreachable; the alarm delivers later; the totals are exact', async () => {
    const alice = await newUser('offline');
    const id = newSessionId('offline');
    await alice.turn(id, 'first');
    await usageSettles(alice, 2); // the answer and the title

    const restore = await intercept(alice, id, () => ({
      report: async () => {
        throw new Error('user object unavailable');
      },
      today: async () => {
        throw new Error('user object unavailable');
      },
    }));
    const answer = await alice.turn(id, 'second');
    expect(answer.status).toBe(200);
    expect(answer.body.stopReason).toBe('end_turn');
    // Not known yet: the list still shows the first turn, the counters its calls.
    expect((await alice.sessions()).sessions[0].messageCount).toBe(2);
    expect((await alice.usage()).total.calls).toBe(2);
    expect(await outboxSize(alice, id)).toBe(2); // the call's usage, the entry

    // The alarm while still unreachable: nothing lost, tried again later.
    expect(await runDurableObjectAlarm(sessionObject(env, { userId: alice.userId }, id))).toBe(true);
    expect(await outboxSize(alice, id)).toBe(2);

    await restore();
    expect(await runDurableObjectAlarm(sessionObject(env, { userId: alice.userId }, id))).toBe(true);
    expect(await outboxSize(alice, id)).toBe(0);
    expect((await alice.sessions()).sessions[0]).toMatchObject({ sessionId: id, messageCount: 4 });
    expect((await alice.usage()).total).toMatchObject({ calls: 3, inputTokens: 60, outputTokens: 6 });
  });

  it('a session deleted while its reports wait: its usage still counts, once, and it leaves the list', async () => {
    const alice = await newUser('deleter');
    const id = newSessionId('deleted');
    await alice.turn(id, 'first');
    await usageSettles(alice, 2);
    const restore = await intercept(alice, id, () => ({
      report: async () => {
        throw new Error('user object unavailable');
      },
      today: async () => {
        throw new Error('user object unavailable');
      },
    }));
    await alice.turn(id, 'second');
    expect((await alice.call(`/sessions/${id}`, { method: 'DELETE' })).status).toBe(204);
    // The storage is gone but for the outbox: the call's usage and the deletion wait there.
    expect(await outboxSize(alice, id)).toBe(2);
    await restore();
    expect(await runDurableObjectAlarm(sessionObject(env, { userId: alice.userId }, id))).toBe(true);
    expect(await outboxSize(alice, id)).toBe(0);
    expect((await alice.usage()).total).toMatchObject({ calls: 3, inputTokens: 60 });
    expect((await alice.sessions()).sessions).toEqual([]);
    expect((await alice.json(`/sessions/${id}`)).status).toBe(404);
  });

  it('a report taken but whose answer was lost is sent again and counted once', async () => {
    const alice = await newUser('lossy');
    const id = newSessionId('lossy');
    await alice.turn(id, 'first');
    await usageSettles(alice, 2);
    const restore = await intercept(alice, id, (real) => ({
      report: async (reports) => {
        await real.report(reports);
        throw new Error('the answer was lost on the way back');
      },
      today: () => real.today(),
    }));
    await alice.turn(id, 'second');
    expect(await outboxSize(alice, id)).toBeGreaterThan(0);
    // Every send is taken and its answer lost: each report may reach the user's object several times.
    await runDurableObjectAlarm(sessionObject(env, { userId: alice.userId }, id));
    await runDurableObjectAlarm(sessionObject(env, { userId: alice.userId }, id));
    expect((await alice.usage()).total.calls).toBe(3);
    expect(await outboxSize(alice, id)).toBeGreaterThan(0);
    await restore();
    await runDurableObjectAlarm(sessionObject(env, { userId: alice.userId }, id));
    expect(await outboxSize(alice, id)).toBe(0);
    expect((await alice.usage()).total).toMatchObject({ calls: 3, inputTokens: 60 });
    expect((await alice.sessions()).sessions[0]).toMatchObject({ messageCount: 4 });
  });

  it('the user’s object evicted while a turn runs: the turn completes and the counts are exact', async () => {
    const alice = await newUser('evicted');
    const id = newSessionId('evicted');
    const response = await alice.call(`/sessions/${id}/turns`, { method: 'POST', body: JSON.stringify({ messages: [{ role: 'user', content: 'slowly' }], model: 'openai:script/slow', stream: 'delta' }) });
    const reading = response.text();
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Its instance goes (its storage stays), mid-turn.
    await runInDurableObject(userObject(env, { userId: alice.userId }), async (_instance, state) => {
      try {
        state.abort('evicted by the test');
      } catch {
        // abort throws in the caller
      }
    }).catch(() => {});
    expect(await reading).toContain('event: turn_stop');
    await alice.turn(id, 'after', { model: PRICED });
    const usage = await usageSettles(alice, 3); // the slow answer, its title, and the last answer
    expect(Object.fromEntries(usage.days.map((day: any) => [day.model, day.calls]))).toEqual({ 'openai:script/slow': 2, [PRICED]: 1 });
    expect((await alice.sessions()).sessions[0]).toMatchObject({ sessionId: id, messageCount: 4, running: false });
  });

  it('a session reset mid-turn tells its list, when it wakes, that the turn ended', async () => {
    const alice = await newUser('reset');
    const id = newSessionId('reset');
    const response = await alice.call(`/sessions/${id}/turns`, { method: 'POST', body: JSON.stringify({ messages: [{ role: 'user', content: 'slowly' }], model: 'openai:script/slow', stream: 'delta' }) });
    const reader = response.body!.getReader();
    await reader.read();
    await vi.waitFor(async () => expect((await alice.sessions()).sessions[0]).toMatchObject({ sessionId: id, running: true }), { timeout: 3000, interval: 50 });
    await abortAllDurableObjects();
    await reader.cancel().catch(() => {});
    // Woken by any request, it closes the cut turn and reports.
    expect((await alice.json(`/sessions/${id}`)).body.running).toBe(false);
    await vi.waitFor(async () => expect((await alice.sessions()).sessions[0]).toMatchObject({ sessionId: id, running: false, messageCount: 1 }), { timeout: 3000, interval: 50 });
  });
});
