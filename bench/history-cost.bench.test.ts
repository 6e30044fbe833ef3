/**
 * Cost against history: a turn (demo model, instant) on sessions of 10, 100, 1,000 and 5,000 stored
 * messages, never compacted (the bench gives the demo model a window they all fit in), so the prompt
 * grows with the history and nothing else should. Measures each turn's latency (the mean of the middle half of repeated
 * turns, sizes alternating) and the SQLite rows it reads and writes (the sums of `rowsRead` and
 * `rowsWritten` over every cursor the turn's statements returned). Prints one `BENCH {json}` line.
 */
import { expect, it } from 'vitest';
import { median, meter, middleMean, rowsSince, seedHistory, turnMs } from './helpers';

const SIZES = [10, 100, 1_000, 5_000];
const ROUNDS = 31;

const seed = (id: string, size: number) => seedHistory(id, size, (index) => `message ${index}: a few words`);

it('a turn on 5,000 stored messages writes the rows one on 10 does, and costs little more', async () => {
  const ids = SIZES.map((size) => `bench-history-${size}-${Date.now()}`);
  for (const [index, size] of SIZES.entries()) await seed(ids[index]!, size);
  for (const [index, id] of ids.entries()) await turnMs(id, -1 - index); // warm up, and the session's title

  const times: number[][] = SIZES.map(() => []);
  const rows: number[][] = SIZES.map(() => []);
  const read: number[][] = SIZES.map(() => []);
  for (const id of ids) await meter(id);
  for (const id of ids) await rowsSince(id);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [index, id] of ids.entries()) {
      times[index]!.push(await turnMs(id, round));
      const since = await rowsSince(id);
      rows[index]!.push(since.written);
      read[index]!.push(since.read);
    }
  }
  const table = SIZES.map((size, index) => ({ stored: size, turnMs: Math.round(middleMean(times[index]!) * 100) / 100, rowsRead: median(read[index]!), rowsWritten: median(rows[index]!) }));
  const first = table[0]!;
  const last = table.at(-1)!;
  const result = {
    name: 'history-cost',
    rounds: ROUNDS,
    rows: table,
    latencyRatio: Math.round((last.turnMs / Math.max(first.turnMs, 1)) * 100) / 100,
    rowsRatio: Math.round((last.rowsWritten / first.rowsWritten) * 100) / 100,
  };
  console.log(`BENCH ${JSON.stringify(result)}`);
  expect(last.rowsWritten).toBeGreaterThan(0);
});
