/** What the workerd benchmarks share: the session object of an id, seeding its history, timing a turn. */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { sessionObjectName } from '../src/http/session-stub';
import { HistoryStore } from '../src/session/store/history';
import { callWorker, settleWorkerCalls } from '../test/helpers/api';

export const stub = (id: string) => env.SESSIONS.getByName(sessionObjectName('local', id));

/** Stores `size` alternating user and assistant messages of `text(index)` in one transaction; `after` runs in the same object. */
export async function seedHistory(id: string, size: number, text: (index: number) => string, after?: (store: HistoryStore) => void): Promise<void> {
  await runInDurableObject(stub(id), async (_instance, state) => {
    const store = new HistoryStore(state.storage);
    store.meta.ensureCreated(id);
    state.storage.transactionSync(() => {
      for (let index = 0; index < size; index++) {
        store.appendMessage('turn_seed', index % 2 === 0 ? { role: 'user', content: text(index) } : { role: 'assistant', content: text(index) });
      }
    });
    after?.(store);
  });
}

/** One JSON-mode turn through the Worker (its user message `text`), timed from the request to the whole body. */
export async function turnMs(id: string, index: number, text = `hello ${index}`): Promise<number> {
  const body = JSON.stringify({ messages: [{ role: 'user', content: text }] });
  const request = new Request(`http://localhost/sessions/${id}/turns`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const started = performance.now();
  const response = await callWorker(request);
  await response.json();
  const ms = performance.now() - started;
  // The request's log line is written after its response: no work may outlive the bench file.
  await settleWorkerCalls();
  return ms;
}

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/**
 * The mean of the middle half. Inside workerd the clock moves in whole milliseconds, and only at
 * I/O: the median of turns of a few milliseconds jumps by whole steps from run to run (5 or 6 ms,
 * a ratio of 1.8 or 2.2). Averaging the middle half keeps the resolution the jitter gives, without
 * the outliers.
 */
export function middleMean(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const quarter = Math.floor(sorted.length / 4);
  const middle = sorted.slice(quarter, sorted.length - quarter);
  return middle.reduce((sum, value) => sum + value, 0) / middle.length;
}

/** Counts the rows every statement of the object reads and writes from now on (the object's `sql.exec`, wrapped). */
export async function meter(id: string): Promise<void> {
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

/** The rows read and written since the last call (every cursor read to its end by then). */
export async function rowsSince(id: string): Promise<{ read: number; written: number }> {
  return runInDurableObject(stub(id), async (_instance, state) => {
    const sql = state.storage.sql as SqlStorage & { cursors?: SqlStorageCursor<Record<string, SqlStorageValue>>[] };
    const cursors = sql.cursors ?? [];
    sql.cursors = [];
    return { read: cursors.reduce((sum, cursor) => sum + cursor.rowsRead, 0), written: cursors.reduce((sum, cursor) => sum + cursor.rowsWritten, 0) };
  });
}
