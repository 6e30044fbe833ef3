/**
 * A woken session's turn against stored history: an object evicted between turns (as an idle one
 * is) reads its kept messages back from storage, and checks each, at its next turn, before it calls
 * the model. A turn (demo model, JSON mode) on sessions of 10, 1,000 and 5,000 stored messages, never
 * compacted (the bench's window holds them all), each turn after every object was reset
 * (`abortAllDurableObjects`). Measures its latency (the mean of the middle half, sizes alternating).
 * Prints one `BENCH {json}` line.
 */
import { abortAllDurableObjects } from 'cloudflare:test';
import { expect, it } from 'vitest';
import { middleMean, seedHistory, turnMs } from './helpers';

const SIZES = [10, 1_000, 5_000];
const ROUNDS = 21;

it('a woken session’s turn reads its history back: its cost against stored messages', async () => {
  const ids = SIZES.map((size) => `bench-woken-${size}-${Date.now()}`);
  for (const [index, size] of SIZES.entries()) await seedHistory(ids[index]!, size, (n) => `message ${n}: a few words of an ordinary conversation`);
  for (const [index, id] of ids.entries()) await turnMs(id, -1 - index); // warm up
  const times: number[][] = SIZES.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [index, id] of ids.entries()) {
      await abortAllDurableObjects();
      times[index]!.push(await turnMs(id, round));
    }
  }
  const rows = SIZES.map((size, index) => ({ stored: size, turnMs: Math.round(middleMean(times[index]!) * 100) / 100 }));
  const latencyRatio = Math.round((rows.at(-1)!.turnMs / Math.max(rows[0]!.turnMs, 1)) * 100) / 100;
  console.log(`BENCH ${JSON.stringify({ name: 'woken-cost', rounds: ROUNDS, rows, latencyRatio })}`);
  expect(rows.every((row) => row.turnMs > 0)).toBe(true);
});
