/**
 * Storage that neither loses nor bloats: a message larger than a row is stored whole and read back
 * byte for byte; a turn's events are packed into few rows; expired logs and keys are pruned.
 */
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it, vi } from 'vitest';
import { sessionObjectName } from '../../src/http/session-stub';
import { HistoryStore } from '../../src/session/store/history';
import { SessionMeta } from '../../src/session/store/meta';
import { SideTables } from '../../src/session/store/side-tables';
import { TurnStore } from '../../src/session/store/turns';
import { fetchWorker, history, jsonTurn, newSessionId, session, turn, user } from '../helpers/api';
import { partsOf } from '../helpers/session-parts';

const stubFor = (sessionId: string) => env.SESSIONS.getByName(sessionObjectName('local', sessionId));
const turnStore = (storage: DurableObjectStorage) => new TurnStore(storage, new SessionMeta(storage));

describe('storage', () => {
  it('stores a message over 2 MB whole, over several rows, and reads it back byte for byte', async () => {
    const id = newSessionId('big');
    await turn(id, { messages: [user('hello')] });
    // Multi-byte characters and surrogate pairs on every side of the row boundaries.
    const unit = 'ab€😀中';
    const content = unit.repeat(Math.ceil(3_000_000 / unit.length));
    const rows = await runInDurableObject(stubFor(id), async (_instance, state) => {
      new HistoryStore(state.storage).appendMessage('turn_test', { role: 'user', content });
      return state.storage.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM message_parts').one().n;
    });
    expect(rows).toBeGreaterThanOrEqual(6);
    const stored = await history(id);
    const back = stored.at(-1);
    expect(back.role).toBe('user');
    // Compared as whole strings (a deep diff of megabytes takes the test runner minutes).
    expect(back.content.length).toBe(content.length);
    expect(back.content === content).toBe(true);
  });

  it('packs a turn’s events into few rows', async () => {
    const id = newSessionId('packed');
    const result = await turn(id, { messages: [user('calculate 1+2; what time is it')], stream: 'delta' });
    if (result.mode === 'none') throw new Error('expected a stream');
    const turnId = result.events[0]!.data.turnId;
    const rows = await runInDurableObject(stubFor(id), async (_instance, state) =>
      state.storage.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM turn_events WHERE turn_id = ?', turnId).one().n,
    );
    expect(Number(result.events.at(-1)!.id)).toBeGreaterThan(60);
    expect(rows).toBe(1);
  });

  it('prunes expired event logs and keys: the events are gone (410), the key runs anew', async () => {
    const id = newSessionId('prune');
    const send = (key: string) =>
      fetchWorker(`/sessions/${id}/turns`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify({ messages: [user('hello')] }),
      });
    const { turnId } = (await (await send('old-key')).json()) as { turnId: string };
    await runInDurableObject(stubFor(id), async (_instance, state) => {
      state.storage.sql.exec('UPDATE turns SET ended_at = ended_at - 2 * 86400000, started_at = started_at - 2 * 86400000 WHERE turn_id = ?', turnId);
      turnStore(state.storage).prune(Date.now() - 86_400_000, 64);
    });
    const gone = await fetchWorker(`/sessions/${id}/turns/${turnId}/events`);
    expect(gone.status).toBe(410);
    expect(((await gone.json()) as any).error.code).toBe('events_expired');
    const again = await send('old-key');
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    await again.arrayBuffer();
    expect(await history(id)).toHaveLength(4);
  });

  it('lets the alarm prune what expired, and set itself for what expires next', async () => {
    const id = newSessionId('alarm');
    const first = await jsonTurn(id, { messages: [user('one')] });
    await jsonTurn(id, { messages: [user('two')] });
    await runInDurableObject(stubFor(id), async (_instance, state) => {
      state.storage.sql.exec('UPDATE turns SET ended_at = ended_at - 2 * 86400000 WHERE turn_id = ?', first.turnId);
    });
    // The alarm is set once the turn would have run a moment (`Housekeeping.turnStarted`).
    await vi.waitFor(async () => expect(await runInDurableObject(stubFor(id), (_instance, state) => state.storage.getAlarm())).not.toBeNull());
    expect(await runDurableObjectAlarm(stubFor(id))).toBe(true);
    const left = await runInDurableObject(stubFor(id), async (_instance, state) => ({
      turns: state.storage.sql.exec<{ turn_id: string }>('SELECT DISTINCT turn_id FROM turn_events').toArray().map((row) => row.turn_id),
      alarm: await state.storage.getAlarm(),
    }));
    expect(left.turns).not.toContain(first.turnId);
    expect(left.turns).toHaveLength(1);
    expect(left.alarm).toBeGreaterThan(Date.now() + 23 * 3600_000);
  });

  it('sets one alarm for short turns, when their logs expire, not a keepalive; fired, it sets itself for the next expiry', async () => {
    const id = newSessionId('burst');
    const alarm = () => runInDurableObject(stubFor(id), (_instance, state) => state.storage.getAlarm());
    await jsonTurn(id, { messages: [user('one')] });
    // Set once the turn would have run a moment (`Housekeeping.turnStarted`); it had ended by then.
    await vi.waitFor(async () => expect(await alarm()).not.toBeNull());
    const at = (await alarm())!;
    expect(at).toBeGreaterThan(Date.now() + 23 * 3600_000);
    expect(at).toBeLessThanOrEqual(Date.now() + 24 * 3600_000);
    // Each alarm set is a storage write: the next turns find it due before their logs expire.
    await jsonTurn(id, { messages: [user('two')] });
    await jsonTurn(id, { messages: [user('three')] });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await alarm()).toBe(at);
    // When it fires, it prunes (the test above) and sets itself for the next expiry.
    expect(await runDurableObjectAlarm(stubFor(id))).toBe(true);
    expect(await alarm()).toBeGreaterThan(Date.now() + 23 * 3600_000);
  });

  it('keeps the logs of the newest turns only', async () => {
    const id = newSessionId('keep');
    for (let index = 0; index < 4; index++) await turn(id, { messages: [user(`m${index}`)] });
    const kept = await runInDurableObject(stubFor(id), async (_instance, state) => {
      turnStore(state.storage).prune(0, 2);
      return state.storage.sql.exec<{ n: number }>('SELECT COUNT(DISTINCT turn_id) AS n FROM turn_events').one().n;
    });
    expect(kept).toBe(2);
  });
});

describe('what a turn reads and writes', () => {
  /** Each statement the object runs from now on, with its first binding and the rows it wrote (its `sql.exec`, wrapped). */
  async function meterStatements(id: string): Promise<{ query: string; written: number }[]> {
    const statements: { query: string; written: number }[] = [];
    await runInDurableObject(stubFor(id), async (_instance, state) => {
      const sql = state.storage.sql;
      const exec = sql.exec.bind(sql);
      sql.exec = ((query: string, ...bindings: SqlStorageValue[]) => {
        const cursor = exec(query, ...bindings);
        const rows = cursor.toArray();
        statements.push({ query: `${query.replace(/\s+/g, ' ').slice(0, 60)} ${String(bindings[0])}`, written: cursor.rowsWritten });
        const raw = () => rows.map((row) => cursor.columnNames.map((name) => row[name]))[Symbol.iterator]();
        return Object.assign(rows[Symbol.iterator](), { toArray: () => rows, one: () => rows[0], raw, rowsRead: cursor.rowsRead, rowsWritten: cursor.rowsWritten, columnNames: cursor.columnNames });
      }) as SqlStorage['exec'];
    });
    return statements;
  }

  // Rows written are what a Durable Object's storage bills a turn by (decision 42): the turn's row
  // (3 as it starts: it, its id's index, its start's; 2 as it ends: it and the index of kept logs),
  // its two messages (2 each, with their branch's index), the session's `updated_at` at either end,
  // its usage and its token calibration (the demo model's moves it every turn), the event log's row
  // (2, with its key's index), and the two reports to the user's object, written, then swept.
  it('a plain turn of a long-lived session writes 19 rows, no counter among them', async () => {
    const id = newSessionId('rows');
    await turn(id, { messages: [user('one')] });
    await turn(id, { messages: [user('two')] });
    const statements = await meterStatements(id);
    expect((await turn(id, { messages: [user('three')] })).status).toBe(200);
    const writes = statements.filter((statement) => statement.written > 0);
    expect(writes.map((write) => write.query).join('\n')).not.toContain('next_seq');
    expect(writes.reduce((sum, write) => sum + write.written, 0), JSON.stringify(writes, null, 1)).toBe(19);
  });

  it('keeps the session’s own rows as written, read once: a turn reads none, a rolled-back write is forgotten', async () => {
    const id = newSessionId('meta-kept');
    await turn(id, { messages: [user('one')] });
    const statements = await meterStatements(id);
    expect((await turn(id, { messages: [user('two')] })).status).toBe(200);
    expect(statements.filter(({ query }) => query.startsWith('SELECT') && query.includes('FROM meta'))).toEqual([]);
    const titles = await runInDurableObject(stubFor(id), async (_instance, state) => {
      const meta = new SessionMeta(state.storage);
      meta.setTitle('kept');
      expect(() =>
        meta.transaction(() => {
          meta.setTitle('rolled back');
          throw new Error('no');
        }),
      ).toThrow('no');
      return { after: meta.title(), stored: state.storage.sql.exec<{ value: string }>(`SELECT value FROM meta WHERE key = 'title'`).one().value };
    });
    expect(titles).toEqual({ after: 'kept', stored: 'kept' });
  });
});

describe('the history a session keeps parsed between turns', () => {
  const text = (message: { content: unknown }) => message.content;

  it('follows new messages, rolled-back writes and writes by another hand, and cannot be changed', async () => {
    const id = newSessionId('kept');
    await turn(id, { messages: [user('hello')] });
    await runInDurableObject(stubFor(id), async (instance, state) => {
      // The object's own store, which its turns use.
      const store = partsOf<{ stores: { history: HistoryStore } }>(instance).stores.history;
      const first = store.historyAfter(0);
      expect(first.map(text)).toEqual(['hello', expect.anything()]);

      // Kept, and trusted: read again, no message row is read (a check by count read every one).
      const sql = state.storage.sql;
      const exec = sql.exec;
      const reads: string[] = [];
      sql.exec = ((query: string, ...bindings: unknown[]) => {
        if (/\bFROM messages\b/.test(query)) reads.push(query);
        return exec.call(sql, query, ...bindings);
      }) as typeof sql.exec;
      try {
        store.appendMessage('turn_a', { role: 'user', content: 'second' });
        reads.length = 0;
        expect(store.historyAfter(0).map(text).at(-1)).toBe('second');
        expect(reads).toEqual([]);
      } finally {
        sql.exec = exec;
      }

      // A write whose transaction rolls back leaves the table as it was: so does the history.
      expect(() =>
        store.meta.transaction(() => {
          store.appendMessage('turn_b', { role: 'user', content: 'rolled back' });
          throw new Error('abort');
        }),
      ).toThrow('abort');
      expect(store.historyAfter(0).map(text)).not.toContain('rolled back');
      // Nor does what the store remembers of each turn's messages (a turn's JSON answer names them).
      expect(store.turnRows('turn_b')).toEqual([]);
      // The seq it took is free again: the next message takes it, once.
      store.appendMessage('turn_c', { role: 'user', content: 'after the rollback' });
      expect(store.historyAfter(0).map(text).slice(-2)).toEqual(['second', 'after the rollback']);

      // Another store on the same storage (another hand) writes: the next read sees it.
      new HistoryStore(state.storage).appendMessage('turn_d', { role: 'user', content: 'elsewhere' });
      const now = store.historyAfter(0);
      expect(now.map(text)).toEqual(['hello', expect.anything(), 'second', 'after the rollback', 'elsewhere']);

      // Shared by later turns, so frozen: a turn that changed one would change the next turn's prompt.
      expect(() => {
        (now[0] as { content: string }).content = 'changed';
      }).toThrow(TypeError);
      expect(store.historyAfter(0)[0]!.content).toBe('hello');
    });
    // What the routes read is what the turns see.
    expect((await history(id)).map(text)).toEqual(['hello', expect.anything(), 'second', 'after the rollback', 'elsewhere']);
  });

  it('keeps the tool call ids of its messages, joined by each message stored after them, dropped with a rollback', async () => {
    const id = newSessionId('kept-call-ids');
    await turn(id, { messages: [user('what time is it in Asia/Tokyo')] });
    await runInDurableObject(stubFor(id), async (instance) => {
      const store = partsOf<{ stores: { history: HistoryStore } }>(instance).stores.history;
      const loaded = store.historyAfter(0);
      const calls = loaded.flatMap((message) => (message.role === 'assistant' && typeof message.content !== 'string' ? message.content.filter((block) => block.type === 'tool_use') : []));
      expect(calls.length).toBeGreaterThan(0);
      expect([...store.historyCallIds()!]).toEqual(calls.map((call) => call.toolCallId));
      store.appendAssistant('turn_a', { role: 'assistant', content: [{ type: 'tool_use', toolCallId: 'call_later', name: 'current_time', input: {} }] });
      store.appendToolResult('turn_a', { role: 'tool', toolCallId: 'call_later', content: 'now' });
      expect(store.historyCallIds()!.has('call_later')).toBe(true);
      expect(() =>
        store.meta.transaction(() => {
          store.appendMessage('turn_b', { role: 'user', content: 'rolled back' });
          throw new Error('abort');
        }),
      ).toThrow('abort');
      expect(store.historyCallIds()).toBeUndefined();
      store.historyAfter(0);
      expect(store.historyCallIds()!.has('call_later')).toBe(true);
    });
  });

  it('is read back by a woken object as its isolate parsed it: the same objects, not parsed again', async () => {
    const id = newSessionId('kept-woken');
    await turn(id, { messages: [user('hello')] });
    await turn(id, { messages: [user('again')] });
    const read = () => runInDurableObject(stubFor(id), async (instance) => partsOf<{ stores: { history: HistoryStore } }>(instance).stores.history.historyAfter(0));
    await abortAllDurableObjects();
    // The woken object parses what it reads back; the isolate keeps it.
    const woken = await read();
    expect(woken.map(text)).toEqual(['hello', expect.anything(), 'again', expect.anything()]);
    await abortAllDurableObjects();
    const again = await read();
    expect(again).toHaveLength(4);
    again.forEach((message, index) => expect(message).toBe(woken[index]));
    // And a message changed in storage by another hand is read as it now is.
    await runInDurableObject(stubFor(id), async (_instance, state) => {
      state.storage.sql.exec('UPDATE messages SET body = ? WHERE seq = (SELECT MIN(seq) FROM messages)', JSON.stringify(user('changed')));
    });
    await abortAllDurableObjects();
    expect((await read()).map(text)[0]).toBe('changed');
  });

  it('is forgotten with the session: a deleted then recreated session starts empty', async () => {
    const id = newSessionId('kept-deleted');
    await turn(id, { messages: [user('first life')] });
    expect((await fetchWorker(`/sessions/${id}`, { method: 'DELETE' })).status).toBe(204);
    await turn(id, { messages: [user('second life')] });
    const messages = await history(id);
    expect(messages.map(text)[0]).toBe('second life');
    expect(messages).toHaveLength(2);
  });
});

describe('migrations', () => {
  it('brings a session stored under the first schema up to date when it wakes, history intact', async () => {
    const id = newSessionId('old-schema');
    const { MIGRATIONS } = await import('../../src/session/store/migrations');
    await runInDurableObject(stubFor(id), async (_instance, state) => {
      // What the first deploy wrote: schema 1, one exchange, a turn that ended.
      const sql = state.storage.sql;
      for (const statement of MIGRATIONS[0]!) sql.exec(statement);
      for (const [key, value] of [['schema_version', '1'], ['session_id', id], ['created_at', '1'], ['updated_at', '1'], ['next_seq', '4']]) {
        sql.exec('INSERT INTO meta (key, value) VALUES (?, ?)', key, value);
      }
      sql.exec(`INSERT INTO messages (seq, turn_id, role, body, created_at) VALUES (1, 't', 'user', '{"role":"user","content":"old"}', 1)`);
      sql.exec(
        `INSERT INTO messages (seq, turn_id, role, body, created_at) VALUES (2, 't', 'assistant', '{"role":"assistant","content":[{"type":"text","text":"reply"},{"type":"tool_use","toolCallId":"call_old","name":"calculator","input":{}}]}', 1)`,
      );
      sql.exec(`INSERT INTO messages (seq, turn_id, role, body, created_at) VALUES (3, 't', 'tool', '{"role":"tool","toolCallId":"call_old","content":"2"}', 1)`);
      sql.exec(`INSERT INTO turns (turn_id, status, model, started_at, ended_at, stop_reason) VALUES ('t', 'finished', 'demo:demo', 1, 1, 'end_turn')`);
    });
    const { abortAllDurableObjects } = await import('cloudflare:test');
    await abortAllDurableObjects();
    const next = await turn(id, { messages: [user('new')] });
    expect(next.status).toBe(200);
    const stored = await history(id);
    expect(stored.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user', 'assistant']);
    expect(stored[3].content).toBe('new');
    // The ids of the old tool calls were indexed on the way up.
    const indexed = await runInDurableObject(stubFor(id), async (_instance, state) => new HistoryStore(state.storage).hasToolCallId('call_old'));
    expect(indexed).toBe(true);
    // The seqs went on from the stored messages; the counter the first schema kept is gone.
    const { seqs, counter } = await runInDurableObject(stubFor(id), async (_instance, state) => ({
      seqs: state.storage.sql.exec<{ seq: number }>('SELECT seq FROM messages ORDER BY seq').toArray().map((row) => row.seq),
      counter: state.storage.sql.exec(`SELECT value FROM meta WHERE key = 'next_seq'`).toArray(),
    }));
    expect(seqs).toEqual([1, 2, 3, 4, 5]);
    expect(counter).toEqual([]);
  });
});

describe('a new session’s schema', () => {
  /** Every table's and index's definition (spacing aside) and every row but the session's own meta. */
  async function snapshot(id: string, make: (sql: SqlStorage, meta: SessionMeta) => void) {
    return runInDurableObject(stubFor(id), async (_instance, state) => {
      const sql = state.storage.sql;
      // The object made its tables when it woke only if it had some: a new one has none yet.
      make(sql, new SessionMeta(state.storage));
      const schema = sql
        .exec<{ type: string; name: string; sql: string }>(`SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE '\\_\\_%' ESCAPE '\\' ORDER BY type, name`)
        .toArray()
        .map((row) => ({ ...row, sql: row.sql.replace(/\s+/g, ' ').replace(/\s*([(),])\s*/g, '$1') }));
      const rows = Object.fromEntries(
        schema.filter((row) => row.type === 'table' && row.name !== 'meta').map((row) => [row.name, sql.exec(`SELECT * FROM "${row.name}"`).toArray()]),
      );
      const version = sql.exec<{ value: string }>(`SELECT value FROM meta WHERE key = 'schema_version'`).toArray()[0]?.value;
      return { schema, rows, version };
    });
  }

  it('is made in one go, the same tables, columns, indexes and rows as replaying every migration, once every lazy family is made', async () => {
    const { MIGRATIONS } = await import('../../src/session/store/migrations');
    const { SCHEMA_AT, LAZY } = await import('../../src/session/store/schema');
    // A migration added without the schema it leads to: new sessions would replay them all.
    expect(SCHEMA_AT).toBe(MIGRATIONS.length);
    const made = await snapshot(newSessionId('schema-made'), (_sql, meta) => {
      meta.ensureCreated('schema-made');
      for (const family of Object.keys(LAZY) as (keyof typeof LAZY)[]) meta.ensure(family);
    });
    const replayed = await snapshot(newSessionId('schema-replayed'), (sql) => {
      for (const statements of MIGRATIONS) for (const statement of statements) sql.exec(statement);
      sql.exec(`INSERT INTO meta (key, value) VALUES ('schema_version', ?)`, String(MIGRATIONS.length));
    });
    expect(made.schema.length).toBeGreaterThan(20);
    expect(made.rows.branches).toEqual([{ id: 1, parent: null, fork_seq: null, ancestors: '[]', created_at: 0 }]);
    expect(made).toEqual(replayed);
  });
});

describe('a new session’s lazy tables', () => {
  const tablesOf = (id: string) =>
    runInDurableObject(stubFor(id), async (_instance, state) =>
      state.storage.sql.exec<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table'`).toArray().map((row) => row.name),
    );

  it('makes only the core tables on a plain first turn; reads of the others answer empty; a family comes with its first write', async () => {
    const id = newSessionId('lazy');
    expect((await turn(id, { messages: [user('hello')] })).status).toBe(200);
    const made = await tablesOf(id);
    expect(made).toEqual(expect.arrayContaining(['meta', 'messages', 'turns', 'branches', 'turn_events']));
    for (const lazy of ['tool_calls', 'tool_call_ids', 'compactions', 'notes', 'permission_rules', 'turn_queue', 'webhook_deliveries', 'schedules', 'socket_staged', 'door_message_ids', 'message_parts']) {
      expect(made).not.toContain(lazy);
    }
    // What reads them answers as their empty tables would.
    const summary = await (await fetchWorker(`/sessions/${id}`)).json<{ messageCount: number; pendingToolCalls: unknown[]; queuedTurns: unknown[] }>();
    expect(summary).toMatchObject({ messageCount: 2, pendingToolCalls: [], queuedTurns: [] });
    expect(await (await fetchWorker(`/sessions/${id}/deliveries`)).json()).toEqual({ deliveries: [] });
    expect(await (await fetchWorker(`/sessions/${id}/schedules`)).json()).toEqual({ schedules: [] });
    expect((await (await fetchWorker(`/sessions/${id}/branches`)).json<{ branches: unknown[] }>()).branches).toHaveLength(1);
    // A tool call, a lasting rule and a note make theirs, in the same session, and are read back.
    expect((await turn(id, { messages: [user('remember buy milk')] })).status).toBe(200);
    expect(await tablesOf(id)).toEqual(expect.arrayContaining(['tool_calls', 'tool_call_ids']));
    const [call] = (await (await fetchWorker(`/sessions/${id}`)).json<{ pendingToolCalls: { toolCallId: string }[] }>()).pendingToolCalls;
    const rule = { tool_name: 'memory_save', rule_content: '', behavior: 'allow' };
    await jsonTurn(id, { messages: [{ role: 'tool_permission', toolCallId: call!.toolCallId, granted: true, rule }] });
    expect(await tablesOf(id)).toEqual(expect.arrayContaining(['permission_rules', 'notes']));
    const listed = await jsonTurn(id, { messages: [user('list notes')] });
    expect(JSON.stringify(listed)).toContain('buy milk');
    // The rule holds: the next note is saved without asking.
    const saved = await jsonTurn(id, { messages: [user('remember buy bread')] });
    expect(saved.stopReason).toBe('end_turn');
  });

  it('sees a family another hand made over the same storage after the object looked', async () => {
    const id = newSessionId('lazy-elsewhere');
    await turn(id, { messages: [user('list notes')] });
    await runInDurableObject(stubFor(id), async (_instance, state) => {
      new SideTables(state.storage, new SessionMeta(state.storage)).save('saved by another hand');
    });
    const listed = await jsonTurn(id, { messages: [user('list notes')] });
    expect(JSON.stringify(listed)).toContain('saved by another hand');
  });

  it('forgets a family made in a transaction that rolled back, and makes it again on the next write', async () => {
    const id = newSessionId('lazy-rollback');
    await turn(id, { messages: [user('hello')] });
    const { rolledBack, hasAfter, tableAfter, made } = await runInDurableObject(stubFor(id), async (_instance, state) => {
      const meta = new SessionMeta(state.storage);
      const rolledBack = (() => {
        try {
          meta.transaction(() => {
            meta.ensure('notes');
            throw new Error('a write that fails after the table was made');
          });
        } catch (error) {
          return (error as Error).message;
        }
      })();
      const hasAfter = meta.has('notes');
      const tableAfter = state.storage.sql.exec(`SELECT 1 FROM sqlite_master WHERE name = 'notes'`).toArray().length;
      meta.ensure('notes');
      return { rolledBack, hasAfter, tableAfter, made: meta.has('notes') && state.storage.sql.exec(`SELECT COUNT(*) AS n FROM notes`).one().n === 0 };
    });
    expect(rolledBack).toBe('a write that fails after the table was made');
    expect(hasAfter).toBe(false);
    expect(tableAfter).toBe(0);
    expect(made).toBe(true);
  });

  it('forgets a session made in a transaction that rolled back (a fork whose copy fails): it does not exist', async () => {
    const id = newSessionId('made-rollback');
    const { inside, after } = await runInDurableObject(stubFor(id), async (_instance, state) => {
      const meta = new SessionMeta(state.storage);
      let inside = false;
      expect(() =>
        meta.transaction(() => {
          meta.ensureCreated(id);
          inside = meta.exists();
          throw new Error('the copy failed');
        }),
      ).toThrow('the copy failed');
      return { inside, after: meta.exists() };
    });
    expect(inside).toBe(true);
    expect(after).toBe(false);
    expect((await session(id)).status).toBe(404);
  });
});
