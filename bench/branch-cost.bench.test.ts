/**
 * Cost on a tree (docs/branches.md): a turn on a session of 5,000 messages in 50 branches, on its
 * longest branch (each branch forks one message before the end of the one before it), against a
 * turn on a session of 5,000 messages in a line. Never compacted (the demo model's window holds
 * both). Measures each turn's latency (mean of the middle half), the rows it reads and writes
 * (median), and the messages its branch holds. Prints one `BENCH {json}` line.
 */
import { runInDurableObject } from 'cloudflare:test';
import { expect, it } from 'vitest';
import { HistoryStore } from '../src/session/store/history';
import { median, meter, middleMean, rowsSince, seedHistory, stub, turnMs } from './helpers';

const MESSAGES = 5_000;
const BRANCHES = 50;
const ROUNDS = 31;

const text = (index: number) => `message ${index}: a few words`;

/** 50 branches of 100 messages, each forked one message before the end of the one before. */
async function seedTree(id: string): Promise<number> {
  return runInDurableObject(stub(id), async (_instance, state) => {
    const store = new HistoryStore(state.storage);
    store.meta.ensureCreated(id);
    const per = MESSAGES / BRANCHES;
    let forkAt: number | undefined;
    state.storage.transactionSync(() => {
      for (let branch = 0; branch < BRANCHES; branch++) {
        if (forkAt !== undefined) store.beginTurn(forkAt);
        let last = 0;
        for (let index = 0; index < per; index++) {
          // A branch forks at an assistant message and goes on with a user message, as an edit does.
          last = store.appendMessage('turn_seed', index % 2 === 0 ? { role: 'user', content: text(index) } : { role: 'assistant', content: text(index) });
        }
        forkAt = last - 2;
        store.branches.settle();
      }
    });
    return store.messageCount();
  });
}

it('a turn on a long branch of a 5,000-message tree reads and writes what one on a 5,000-message line does', async () => {
  const line = `bench-branch-line-${Date.now()}`;
  const tree = `bench-branch-tree-${Date.now()}`;
  await seedHistory(line, MESSAGES, text);
  const branchLength = await seedTree(tree);
  const ids = [line, tree];
  for (const [index, id] of ids.entries()) await turnMs(id, -1 - index);
  for (const id of ids) await meter(id);
  for (const id of ids) await rowsSince(id);
  const times: number[][] = [[], []];
  const read: number[][] = [[], []];
  const written: number[][] = [[], []];
  for (let round = 0; round < ROUNDS; round++) {
    for (const [index, id] of ids.entries()) {
      times[index]!.push(await turnMs(id, round));
      const rows = await rowsSince(id);
      read[index]!.push(rows.read);
      written[index]!.push(rows.written);
    }
  }
  const row = (index: number, name: string, branchMessages: number) => ({
    name,
    branchMessages,
    turnMs: Math.round(middleMean(times[index]!) * 100) / 100,
    rowsRead: median(read[index]!),
    rowsWritten: median(written[index]!),
  });
  const rows = [row(0, '5,000 in a line', MESSAGES), row(1, `5,000 in ${BRANCHES} branches`, branchLength)];
  const result = {
    name: 'branch-cost',
    rounds: ROUNDS,
    rows,
    latencyRatio: Math.round((rows[1]!.turnMs / Math.max(rows[0]!.turnMs, 1)) * 100) / 100,
    readRatio: Math.round((rows[1]!.rowsRead / Math.max(rows[0]!.rowsRead, 1)) * 100) / 100,
    writtenRatio: Math.round((rows[1]!.rowsWritten / Math.max(rows[0]!.rowsWritten, 1)) * 100) / 100,
  };
  console.log(`BENCH ${JSON.stringify(result)}`);
  expect(rows[1]!.rowsWritten).toBeGreaterThan(0);
});
