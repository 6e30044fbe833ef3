/**
 * A woken session's turn against stored history: an object evicted between turns (as an idle one
 * is) reads its kept messages back from storage at its next turn, before it calls the model. Each one
 * its isolate parsed before is taken as it was made then (`parsedOnce`); the others are parsed and
 * checked. A turn (demo model, JSON mode) on sessions of 10, 1,000 and 5,000 stored messages, never
 * compacted (the bench's window holds them all), each turn after every object was reset
 * (`abortAllDurableObjects`): once with what the isolate kept parsed pushed out first (its messages
 * parsed again, as in an isolate that never read them), once with it kept. Measures each latency (the
 * mean of the middle half, sizes and kinds alternating). Prints one `BENCH {json}` line.
 */
import { abortAllDurableObjects } from 'cloudflare:test';
import { expect, it } from 'vitest';
import { PARSED_CHARS, parsedOnce } from '../src/session/store/history-cache';
import { middleMean, seedHistory, turnMs } from './helpers';

const SIZES = [10, 1_000, 5_000];
const ROUNDS = 21;
const KINDS = ['parsed', 'kept'] as const;

let pushed = 0;
/** Fills what the isolate keeps parsed with texts of its own, each as long as it keeps: every message kept before is pushed out. */
function pushOutParsed(): void {
  const length = PARSED_CHARS / 16;
  for (let index = 0; index <= 16; index++) parsedOnce(`${pushed++}`.padEnd(length, ' '), () => ({ role: 'user', content: '' }));
}

it('a woken session’s turn reads its history back: its cost against stored messages', async () => {
  const ids = SIZES.map((size) => `bench-woken-${size}-${Date.now()}`);
  for (const [index, size] of SIZES.entries()) await seedHistory(ids[index]!, size, (n) => `message ${n}: a few words of an ordinary conversation`);
  for (const [index, id] of ids.entries()) await turnMs(id, -1 - index); // warm up
  const times = Object.fromEntries(KINDS.map((kind) => [kind, SIZES.map((): number[] => [])]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const kind of round % 2 === 0 ? KINDS : [...KINDS].reverse()) {
      for (const [index, id] of ids.entries()) {
        await abortAllDurableObjects();
        if (kind === 'parsed') pushOutParsed();
        times[kind]![index]!.push(await turnMs(id, round));
      }
    }
  }
  const rows = SIZES.map((size, index) => ({
    stored: size,
    parsedMs: Math.round(middleMean(times.parsed![index]!) * 100) / 100,
    keptMs: Math.round(middleMean(times.kept![index]!) * 100) / 100,
  }));
  const ratio = (key: 'parsedMs' | 'keptMs') => Math.round((rows.at(-1)![key] / Math.max(rows[0]![key], 1)) * 100) / 100;
  console.log(`BENCH ${JSON.stringify({ name: 'woken-cost', rounds: ROUNDS, rows, parsedRatio: ratio('parsedMs'), keptRatio: ratio('keptMs') })}`);
  expect(rows.every((row) => row.parsedMs > 0 && row.keptMs > 0)).toBe(true);
});
