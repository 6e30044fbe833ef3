/**
 * Cost against history: a turn (demo model, instant) on sessions of 10, 100, 1,000 and 5,000 stored
 * messages, never compacted (the bench gives the demo model a window they all fit in), so the prompt
 * grows with the history and nothing else should. Measures each turn's latency (median of repeated
 * turns, sizes alternating) and the SQLite rows it writes (the sum of `rowsWritten` over every cursor
 * the turn's statements returned). Prints one `BENCH {json}` line.
 */
import { createExecutionContext, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { expect, it } from 'vitest';
import worker from '../src/index';
import { sessionObjectName } from '../src/http/session-stub';
import { SessionStore } from '../src/session/store';

const SIZES = [10, 100, 1_000, 5_000];
const ROUNDS = 15;

const stub = (id: string) => env.SESSIONS.getByName(sessionObjectName('local', id));

async function seed(id: string, size: number): Promise<void> {
  await runInDurableObject(stub(id), async (_instance, state) => {
    const store = new SessionStore(state.storage);
    store.ensureCreated(id);
    state.storage.transactionSync(() => {
      for (let index = 0; index < size; index++) {
        const text = `message ${index}: a few words`;
        store.appendMessage('turn_seed', index % 2 === 0 ? { role: 'user', content: text } : { role: 'assistant', content: text });
      }
    });
  });
}

/** Counts the rows every statement of the object writes from now on (the object's `sql.exec`, wrapped). */
async function meter(id: string): Promise<void> {
  await runInDurableObject(stub(id), async (_instance, state) => {
    const sql = state.storage.sql as SqlStorage & { cursors?: SqlStorageCursor<Record<string, SqlStorageValue>>[] };
    if (sql.cursors) return;
    const exec = sql.exec.bind(sql);
    sql.cursors = [];
    sql.exec = ((query: string, ...bindings: unknown[]) => {
      const cursor = exec(query, ...bindings);
      sql.cursors!.push(cursor);
      return cursor;
    }) as SqlStorage['exec'];
  });
}

/** The rows written since the last call (every cursor read to its end by then). */
async function rowsWritten(id: string): Promise<number> {
  return runInDurableObject(stub(id), async (_instance, state) => {
    const sql = state.storage.sql as SqlStorage & { cursors?: SqlStorageCursor<Record<string, SqlStorageValue>>[] };
    const total = (sql.cursors ?? []).reduce((sum, cursor) => sum + cursor.rowsWritten, 0);
    sql.cursors = [];
    return total;
  });
}

async function turnMs(id: string, index: number): Promise<number> {
  const body = JSON.stringify({ messages: [{ role: 'user', content: `hello ${index}` }] });
  const request = new Request(`http://localhost/sessions/${id}/turns`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const started = performance.now();
  const response = await worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, env, createExecutionContext());
  await response.json();
  return performance.now() - started;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

it('a turn on 5,000 stored messages writes the rows one on 10 does, and costs little more', async () => {
  const ids = SIZES.map((size) => `bench-history-${size}-${Date.now()}`);
  for (const [index, size] of SIZES.entries()) await seed(ids[index]!, size);
  for (const [index, id] of ids.entries()) await turnMs(id, -1 - index); // warm up, and the session's title

  const times: number[][] = SIZES.map(() => []);
  const rows: number[][] = SIZES.map(() => []);
  for (const id of ids) await meter(id);
  for (const id of ids) await rowsWritten(id);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [index, id] of ids.entries()) {
      times[index]!.push(await turnMs(id, round));
      rows[index]!.push(await rowsWritten(id));
    }
  }
  const table = SIZES.map((size, index) => ({ stored: size, turnMs: Math.round(median(times[index]!) * 100) / 100, rowsWritten: median(rows[index]!) }));
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
