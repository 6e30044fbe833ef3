/**
 * How a session's reports reach its user's object (docs/users.md, "How it works"): a model call's
 * usage waits for the end of the task that made it, so that a turn whose last call ends it tells
 * the call and its end in one report; a turn that goes on sends the usage meanwhile.
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { ModelCallUsage } from '../../src/agent/events';
import { emptyUsage } from '../../src/agent/usage';
import type { SessionObject } from '../../src/session/session-object';
import type { UserLink, UserReports } from '../../src/session/user-link';
import type { Report } from '../../src/users/reports';
import { sessionObject } from '../../src/users/owner';
import { newSessionId } from '../helpers/api';
import { partsOf } from '../helpers/session-parts';
import { newUser, PRICED, usageSettles } from '../helpers/users';

/** The link's public methods, and the host it reaches its user's object through (private in the class). */
type Link = Pick<UserLink, 'spent' | 'ended' | 'delivered'> & { host: { user: () => UserReports } };
const call: ModelCallUsage = { model: PRICED, usage: { ...emptyUsage(), inputTokens: 20, outputTokens: 2 } };

/** A session with one turn behind it, whose reports from now on are recorded, batch by batch, on their way. */
async function recordedSession() {
  const user = await newUser('batches');
  const id = newSessionId('batches');
  await user.turn(id, 'first');
  await usageSettles(user, 2); // the answer and its title
  const batches: Report['kind'][][] = [];
  const stub = sessionObject(env, { userId: user.userId }, id);
  await runInDurableObject(stub, async (instance: SessionObject) => {
    const link = partsOf<{ users: Link }>(instance).users;
    const real = link.host.user;
    link.host.user = () => {
      const user = real();
      return { today: () => user.today(), report: (reports) => (batches.push(reports.map((report) => report.kind)), user.report(reports)) };
    };
  });
  const inside = (work: (link: Link) => Promise<void>) => runInDurableObject(stub, (instance: SessionObject) => work(partsOf<{ users: Link }>(instance).users));
  return { user, id, batches, inside };
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
