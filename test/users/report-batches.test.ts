/**
 * How a session's reports reach its user's object (docs/users.md, "How it works"): a model call's
 * usage waits for the end of the task that made it, so that a turn whose last call ends it tells
 * the call and its end in one report; a turn that goes on sends the usage meanwhile. What a turn's
 * end sent leaves the outbox with its next write or by the alarm, and a later instance that sends it
 * again has it counted once.
 */
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it, vi } from 'vitest';
import type { ModelCallUsage } from '../../src/agent/events';
import { emptyUsage } from '../../src/agent/usage';
import type { Housekeeping } from '../../src/session/housekeeping';
import type { SessionObject } from '../../src/session/session-object';
import type { UserLink, UserReports } from '../../src/session/user-link';
import type { Report } from '../../src/users/reports';
import { sessionObject, userObject } from '../../src/users/owner';
import { newSessionId } from '../helpers/api';
import { partsOf } from '../helpers/session-parts';
import { newUser, PRICED, usageSettles } from '../helpers/users';

/** The link's public methods, and the host it reaches its user's object through (private in the class). */
type Link = Pick<UserLink, 'spent' | 'ended' | 'delivered'> & { host: { user: () => UserReports; alarmComingBy: (at: number) => boolean } };
const call: ModelCallUsage = { model: PRICED, usage: { ...emptyUsage(), inputTokens: 20, outputTokens: 2 } };

/** A session with one turn behind it, whose reports from now on are recorded, batch by batch, on their way. */
async function recordedSession() {
  const user = await newUser('batches');
  const id = newSessionId('batches');
  await user.turn(id, 'first');
  await usageSettles(user, 2); // the answer and its title
  const batches: Report['kind'][][] = [];
  /** A stub of the session (one taken before `abortAllDurableObjects` fails after it). */
  const fresh = () => sessionObject(env, { userId: user.userId }, id);
  const stub = fresh();
  await runInDurableObject(stub, async (instance: SessionObject) => {
    const link = partsOf<{ users: Link }>(instance).users;
    const real = link.host.user;
    link.host.user = () => {
      const user = real();
      return { today: () => user.today(), report: (reports) => (batches.push(reports.map((report) => report.kind)), user.report(reports)) };
    };
  });
  const inside = (work: (link: Link) => Promise<void>) => runInDurableObject(stub, (instance: SessionObject) => work(partsOf<{ users: Link }>(instance).users));
  /** The rows the outbox stores, sent or not. */
  const stored = () => runInDurableObject(fresh(), (_instance, state) => state.storage.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM user_outbox').one().n);
  return { user, id, fresh, batches, inside, stored };
}

const nextTask = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('reports to the user’s object', () => {
  it('sends a call’s usage and the turn’s end, told in the same task, as one report', async () => {
    const { id, batches, inside } = await recordedSession();
    await inside(async (link) => {
      link.spent(call);
      link.ended(id);
      await link.delivered();
    });
    expect(batches).toEqual([['usage', 'session']]);
  });

  it('sends a call’s usage once its task has run out, while the turn goes on', async () => {
    const { user, batches, inside } = await recordedSession();
    await inside(async (link) => {
      link.spent(call);
      expect(batches).toEqual([]);
      await nextTask();
    });
    expect(batches).toEqual([['usage']]);
    expect((await user.usage()).total.calls).toBe(3);
  });

  it('reports a turn of one model call in one report', async () => {
    const { user, id, batches } = await recordedSession();
    expect((await user.turn(id, 'second')).status).toBe(200);
    await usageSettles(user, 3);
    expect(batches).toEqual([['usage', 'session']]);
  });
});

describe('what was sent leaves the outbox', () => {
  it('with the outbox’s next write or by the alarm, not in a commit at the end of each turn; a later instance sends it again, counted once', async () => {
    const { user, id, fresh, batches, stored } = await recordedSession();
    // The first turn's end set the alarm for its log's expiry, a day on.
    await vi.waitFor(async () => expect(await runInDurableObject(fresh(), (_instance, state) => state.storage.getAlarm())).not.toBeNull());

    await user.turn(id, 'second');
    expect(batches).toEqual([['usage', 'session']]);
    expect(await stored()).toBe(2); // taken, and still stored
    await user.turn(id, 'third');
    // Nothing sent twice; the second turn's rows went with the third's first write to the outbox.
    expect(batches).toEqual([['usage', 'session'], ['usage', 'session']]);
    expect(await stored()).toBe(2);
    expect(await runDurableObjectAlarm(fresh())).toBe(true);
    expect(await stored()).toBe(0);
    expect(batches).toHaveLength(2); // this instance's alarm sent nothing again

    await user.turn(id, 'fourth');
    expect(await stored()).toBe(2);
    expect((await user.usage()).total.calls).toBe(5); // two calls of the first turn (its answer, its title), one each since
    // A later instance does not know they were taken: its alarm sends them again, and deletes them.
    await abortAllDurableObjects();
    expect(await runDurableObjectAlarm(fresh())).toBe(true);
    expect(await stored()).toBe(0);
    expect((await user.usage()).total).toMatchObject({ calls: 5, inputTokens: 100 });
    expect((await user.sessions()).sessions[0]).toMatchObject({ sessionId: id, messageCount: 8 });
  });

  it('at once when no alarm is due to delete it', async () => {
    const { id, inside, stored } = await recordedSession();
    /** A turn's end (after a model call, with `usage`), the alarm due within two days or not. */
    const turnEnds = (alarmDue: boolean, usage: boolean) =>
      inside(async (link) => {
        link.host.alarmComingBy = () => alarmDue;
        if (usage) link.spent(call);
        link.ended(id);
        await link.delivered();
      });
    await turnEnds(false, true);
    expect(await stored()).toBe(0);
    await turnEnds(true, true);
    expect(await stored()).toBe(2);
    // An entry alone (no call's usage before it): its write takes the rows sent before with it.
    await turnEnds(true, false);
    expect(await stored()).toBe(1);
  });

  it('with the alarm a session’s first turn has its timer set, when no alarm was due before it', async () => {
    const { id, fresh, batches, stored } = await recordedSession();
    const alarm = () => runInDurableObject(fresh(), (_instance, state) => state.storage.getAlarm());
    // The first turn's own timer has fired (it sets the alarm for its log), so that only this one is pending below.
    await vi.waitFor(async () => expect(await alarm()).not.toBeNull());
    // The turn's timer held until the checks are made: on a loaded machine its quarter second could
    // pass before them, and the alarm it sets be read as one the turn's end set.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      // As on a session's first turn: no alarm, until the turn's timer sets one for its log's expiry.
      await runInDurableObject(fresh(), async (instance: SessionObject, state) => {
        const { users, housekeeping } = partsOf<{ users: Link; housekeeping: Housekeeping }>(instance);
        await state.storage.deleteAlarm();
        housekeeping.knownAlarm(null);
        housekeeping.turnStarted(true);
        users.spent(call);
        users.ended(id);
        await users.delivered();
      });
      expect(batches).toEqual([['usage', 'session']]);
      expect(await alarm()).toBeNull();
      expect(await stored()).toBe(2); // taken, and left for the alarm the timer sets
      // Run in the object, as the timer's own task would be.
      await runInDurableObject(fresh(), async () => void vi.runOnlyPendingTimers());
    } finally {
      vi.useRealTimers();
    }
    await vi.waitFor(async () => expect(await alarm()).not.toBeNull());
    expect(await runDurableObjectAlarm(fresh())).toBe(true);
    expect(await stored()).toBe(0);
  });
});

describe('what a report costs its user’s object', () => {
  // Rows written are what storage bills (decision 42): the id a usage report is remembered by is
  // the table's own key, so it writes two rows (it and its time's index; three with a rowid).
  it('remembers a usage report’s id in two rows written', async () => {
    const user = await newUser('applied');
    await user.turn(newSessionId('applied'), 'first');
    await usageSettles(user, 2);
    const rows = await runInDurableObject(userObject(env, { userId: user.userId }), async (_instance, state) => {
      const sql = state.storage.sql;
      const inserted = sql.exec(`INSERT INTO applied (report_id, at) VALUES ('use_measured', 0)`);
      inserted.toArray();
      const pruned = sql.exec(`DELETE FROM applied WHERE report_id = 'use_measured'`);
      pruned.toArray();
      return { inserted: inserted.rowsWritten, pruned: pruned.rowsWritten };
    });
    expect(rows).toEqual({ inserted: 2, pruned: 1 });
  });
});
