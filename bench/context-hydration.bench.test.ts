/**
 * Bounded hydration: a turn on a session of 50,000 stored messages against one of 500, both long
 * since compacted (the latest summary covers all but the last 40 messages). Measures the turn's
 * latency (the mean of the middle half of repeated turns, sizes alternating) and what the turn loads into memory: the
 * messages after the latest summary, and their size in bytes. Prints one `BENCH {json}` line.
 */
import { runInDurableObject } from 'cloudflare:test';
import { expect, it } from 'vitest';
import { HistoryStore } from '../src/session/store/history';
import { middleMean, seedHistory, stub, turnMs } from './helpers';

const SIZES = [500, 50_000];
const KEPT = 40;
const ROUNDS = 31;

async function seed(id: string, size: number): Promise<void> {
  await seedHistory(id, size, (index) => `message ${index}: ${'a few words of an ordinary conversation '.repeat(3)}`, (store) => {
    const cut = size - KEPT;
    store.compactions.add('turn_seed', { summary: `A summary of ${cut} messages.`, messagesSummarized: cut, totalSummarized: cut, tokensBefore: 0, tokensAfter: 0 });
  });
}

it('a turn on 50,000 stored messages costs what one on 500 does', async () => {
  const ids = SIZES.map((size) => `bench-hydration-${size}-${Date.now()}`);
  for (const [index, size] of SIZES.entries()) await seed(ids[index]!, size);
  for (const id of ids) await turnMs(id, -1); // warm up

  const times: number[][] = SIZES.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [index, id] of ids.entries()) times[index]!.push(await turnMs(id, round));
  }
  const loaded = await Promise.all(
    ids.map((id) =>
      runInDurableObject(stub(id), async (_instance, state) => {
        const store = new HistoryStore(state.storage);
        const history = store.historyAfter(store.compactions.latest()?.upToSeq ?? 0);
        return { messages: history.length, bytes: JSON.stringify(history).length };
      }),
    ),
  );
  const rows = SIZES.map((size, index) => ({ stored: size, turnMs: Math.round(middleMean(times[index]!) * 100) / 100, loaded: loaded[index]! }));
  const result = { name: 'context-hydration', rows, latencyRatio: Math.round((rows[1]!.turnMs / rows[0]!.turnMs) * 100) / 100 };
  console.log(`BENCH ${JSON.stringify(result)}`);
  expect(rows[1]!.loaded.messages).toBeLessThan(200);
});
