/**
 * An agent session's turn against stored history: sessions of 12 and 5,000 stored messages, each
 * four a user's question, the model's call of a tool (`current_time`), its result and the answer,
 * never compacted; each turn (demo model, JSON mode) asks the time again, so that it takes a tool's
 * step first: two model calls, each reading the whole history (its estimate, its conversion, the
 * tool call ids a model may not give again). Measures each turn's latency (the mean of the middle
 * half, sizes alternating). Prints one `BENCH {json}` line.
 */
import { expect, it } from 'vitest';
import { middleMean, seedHistory, turnMs } from './helpers';

const SIZES = [12, 5_000];
const ROUNDS = 31;

it('an agent session’s turn with a tool’s step, against stored history', async () => {
  const ids = SIZES.map((size) => `bench-agent-${size}-${Date.now()}`);
  for (const [index, size] of SIZES.entries()) {
    await seedHistory(ids[index]!, 0, () => '', (store) => {
      for (let n = 0; n < size / 4; n++) {
        store.appendMessage('turn_seed', { role: 'user', content: `what time is it in Europe/Paris, ${n}?` });
        store.appendMessage('turn_seed', {
          role: 'assistant',
          content: [{ type: 'text', text: 'Let me look.' }, { type: 'tool_use', toolCallId: `call_seed_${n}`, name: 'current_time', input: { timezone: 'Europe/Paris' } }],
        });
        store.appendMessage('turn_seed', { role: 'tool', toolCallId: `call_seed_${n}`, content: '2026-12-04T11:00:00.000+01:00' });
        store.appendMessage('turn_seed', { role: 'assistant', content: `It is 11:00 in Paris (${n}).` });
      }
    });
  }
  const ask = (index: number) => `what time is it in Europe/Paris ${index}`;
  for (const [index, id] of ids.entries()) for (let warm = 0; warm < 3; warm++) await turnMs(id, -1, ask(-10 * index - warm));
  const times = SIZES.map((): number[] => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [index, id] of ids.entries()) times[index]!.push(await turnMs(id, round, ask(round)));
  }
  const rows = SIZES.map((size, index) => ({ stored: size, turnMs: Math.round(middleMean(times[index]!) * 100) / 100 }));
  const latencyRatio = Math.round((rows.at(-1)!.turnMs / Math.max(rows[0]!.turnMs, 1)) * 100) / 100;
  console.log(`BENCH ${JSON.stringify({ name: 'agent-history', rounds: ROUNDS, rows, latencyRatio })}`);
  expect(rows.every((row) => row.turnMs > 0)).toBe(true);
});
