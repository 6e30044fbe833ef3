/**
 * A model call's usage in the session's link to its user (src/session/user-link.ts): counted at once
 * (the quota and a sub-agent's start read it), written to the outbox at the end of its task, with
 * every other waiter of that task (src/session/task-end.ts), or before a send that comes first; and
 * kept when the session is erased before it was written.
 */
import { describe, expect, it } from 'vitest';
import type { Report } from '../../src/users/reports';
import type { Outbox } from '../../src/session/store/outbox';
import type { SessionStores } from '../../src/session/store/stores';
import { TaskEnd } from '../../src/session/task-end';
import { UserLink } from '../../src/session/user-link';
import { emptyUsage } from '../../src/agent/usage';

/** An outbox in memory, with the calls the link makes of it. */
function memoryOutbox() {
  const rows: { id: number; report: Report; attempts: number; taken: boolean }[] = [];
  const outbox = {
    add: (report: Report) => rows.push({ id: rows.length + 1, report, attempts: 0, taken: false }),
    waiting: () => rows.filter((row) => !row.taken),
    taken: (upTo: number) => rows.forEach((row) => (row.taken ||= row.id <= upTo)),
    sweep: () => {},
    size: () => rows.filter((row) => !row.taken).length,
    failed: () => 1,
  };
  return { rows, outbox: outbox as unknown as Outbox };
}

function link() {
  const { rows, outbox } = memoryOutbox();
  const sent: Report[][] = [];
  const taskEnd = new TaskEnd();
  /** The waits for the task's end the link withdrew. */
  const withdrawn = { count: 0 };
  const users = new UserLink({
    stores: {} as SessionStores,
    outbox,
    user: () => ({ report: async (reports) => (sent.push(reports), { today: { date: '2026-12-04', tokens: 0, costUsd: 0 } }), today: async () => ({ date: '2026-12-04', tokens: 0, costUsd: 0 }) }),
    settings: () => ({ prices: {}, dailyTokens: 0, dailyCostUsd: 0 }),
    afterThisTask: (run) => {
      const withdraw = taskEnd.join(run);
      return () => (withdrawn.count++, withdraw());
    },
    wake: () => {},
    alarmComingBy: () => true,
    running: () => true,
    erase: async () => {},
  });
  return { users, rows, sent, taskEnd, withdrawn };
}

const call = { model: 'test:model', usage: { ...emptyUsage(), inputTokens: 10, outputTokens: 5 } };
const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('a model call’s usage, for the user', () => {
  it('is counted at once and written at the end of its task, with the task’s other waiters', async () => {
    const { users, rows, sent, taskEnd } = link();
    const at = Date.parse('2026-12-04T10:00:00Z');
    users.spent(call, at);
    expect(users.totals(at).tokens).toBe(15);
    expect(rows).toHaveLength(0);
    let rowsSeenByTheNextWaiter = -1;
    void taskEnd.wait().then(() => (rowsSeenByTheNextWaiter = rows.length));
    await nextTask();
    expect(rowsSeenByTheNextWaiter).toBe(1);
    expect(rows[0]!.report).toMatchObject({ kind: 'usage', usage: { inputTokens: 10 } });
    await nextTask();
    expect(sent).toHaveLength(1);
  });

  it('is written before a send that comes first, whose own wait is withdrawn', async () => {
    const { users, rows, sent, withdrawn } = link();
    users.spent(call);
    await users.sendNow();
    expect(rows.map((row) => row.report.kind)).toEqual(['usage']);
    expect(withdrawn.count).toBe(1);
    await nextTask();
    expect(sent).toHaveLength(1);
  });

  it('outlives the session erased before its task ended: written before the deletion’s report', async () => {
    const { users, rows } = link();
    users.spent(call);
    users.deleted('s1', 1);
    expect(rows.map((row) => row.report.kind)).toEqual(['usage', 'deleted']);
  });
});
