/**
 * Branches in storage (docs/branches.md): a session stored before branches reads back as one branch
 * after the upgrade, its pending call and compaction intact; a compaction holds only on the branches
 * that hold every message it summarises; a turn on a branch reads its own path only; a branch made in
 * a transaction that rolls back leaves nothing read of it behind.
 */
import { abortAllDurableObjects, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { sessionObjectName } from '../../src/http/session-stub';
import { HistoryStore } from '../../src/session/store/history';
import type { SessionStores } from '../../src/session/store/stores';
import { MIGRATIONS } from '../../src/session/store/migrations';
import { fetchWorker, history, jsonTurn, newSessionId, session, storedMessages, user } from '../helpers/api';
import { partsOf } from '../helpers/session-parts';

const stubFor = (id: string) => env.SESSIONS.getByName(sessionObjectName('local', id));

describe('a session stored before branches', () => {
  it('reads back as a single branch after the upgrade, its pending call owed, its summary used', async () => {
    const id = newSessionId('pre-branches');
    await runInDurableObject(stubFor(id), async (_instance, state) => {
      // What the deploy before branches wrote: every migration up to the queue, an exchange summarised,
      // and a second one whose permission is still owed.
      const sql = state.storage.sql;
      const before = MIGRATIONS.findIndex((statements) => statements.some((statement) => statement.startsWith('CREATE TABLE branches')));
      for (const [index, statements] of MIGRATIONS.slice(0, before).entries()) {
        for (const statement of statements) if (!(index > 0 && statement.startsWith('CREATE TABLE meta'))) sql.exec(statement);
      }
      for (const [key, value] of [['schema_version', String(before)], ['session_id', id], ['created_at', '1'], ['updated_at', '1'], ['next_seq', '6']]) {
        sql.exec('INSERT INTO meta (key, value) VALUES (?, ?)', key, value);
      }
      const insert = (seq: number, role: string, body: unknown) =>
        sql.exec(`INSERT INTO messages (seq, turn_id, role, body, created_at) VALUES (?, 't', ?, ?, 1)`, seq, role, JSON.stringify(body));
      insert(1, 'user', { role: 'user', content: 'old question' });
      insert(2, 'assistant', { role: 'assistant', content: 'old answer' });
      insert(3, 'user', { role: 'user', content: 'remember milk' });
      insert(4, 'assistant', { role: 'assistant', content: [{ type: 'tool_use', toolCallId: 'call_old', name: 'memory_save', input: { text: 'milk' } }] });
      sql.exec(`INSERT INTO tool_calls (tool_call_id, result_seq, name, input, execution, state) VALUES ('call_old', 5, 'memory_save', '{"text":"milk"}', 'untrusted', 'waiting')`);
      sql.exec(`INSERT INTO tool_call_ids (id) VALUES ('call_old')`);
      sql.exec(`INSERT INTO compactions (turn_id, up_to_seq, summary, summarized, tokens_before, tokens_after, created_at) VALUES ('t', 2, 'They talked.', 2, 10, 2, 1)`);
      sql.exec(`INSERT INTO turns (turn_id, status, model, started_at, ended_at, stop_reason) VALUES ('t', 'finished', 'demo:demo', 1, 1, 'tool_use')`);
    });
    await abortAllDurableObjects();

    const stored = await storedMessages(id);
    expect(stored.map((message) => [message.id, message.parentId, message.role])).toEqual([
      ['msg_1', undefined, 'user'],
      ['msg_2', 'msg_1', 'assistant'],
      [undefined, undefined, 'compaction'],
      ['msg_3', 'msg_2', 'user'],
      ['msg_4', 'msg_3', 'assistant'],
    ]);
    const branches = (await (await fetchWorker(`/sessions/${id}/branches`)).json()) as { branches: unknown[] };
    expect(branches.branches).toEqual([{ leafId: 'msg_4', active: true, messageCount: 4, updatedAt: new Date(1).toISOString() }]);
    expect((await session(id)).body.pendingToolCalls.map((call: any) => call.toolCallId)).toEqual(['call_old']);

    // The owed call is answered as before the upgrade, and its result follows the call.
    const answered = await jsonTurn(id, { messages: [{ role: 'tool_permission', toolCallId: 'call_old', granted: true }] });
    expect(answered.messages[0]).toMatchObject({ id: 'msg_5', parentId: 'msg_4', role: 'tool' });
    // An edit of the first exchange makes a second branch beside it.
    await jsonTurn(id, { messages: [user('another question')], parentId: 'msg_2' });
    // It forks at the summary's last message, so the summary holds on it too, marked where it stands.
    expect((await history(id)).map((message) => message.content ?? message.summary)).toEqual(['old question', 'old answer', 'They talked.', 'another question', expect.anything()]);
  });
});

/** A session of `count` messages in a line, alternating `u1`, `a2`, `u3`, ..., stored through the object's history store. */
function storeOf(storage: DurableObjectStorage, id: string, count: number): HistoryStore {
  const store = new HistoryStore(storage);
  store.meta.ensureCreated(id);
  for (let index = 1; index <= count; index++) {
    store.appendMessage('t', index % 2 === 1 ? { role: 'user', content: `u${index}` } : { role: 'assistant', content: `a${index}` });
  }
  return store;
}

describe('a branch made in a transaction that rolls back', () => {
  it('leaves nothing of it behind: the next branch, made with its id, reads its own path', async () => {
    const id = newSessionId('branch-rollback');
    await runInDurableObject(stubFor(id), async (_instance, state) => {
      const store = storeOf(state.storage, id, 4);
      // What a turn reads, and what the messages' route reads (the path, from the table).
      const contents = () => store.historyAfter(0).map((message) => message.content);
      const onPath = () => store.rowsOn(store.branches.head(), 0).map((row) => row.message.content);
      expect(contents()).toEqual(['u1', 'a2', 'u3', 'a4']);

      // An edit of u3 (from a2) whose write rolls back: its branch and what was read of it go too.
      store.beginTurn(2);
      expect(contents()).toEqual(['u1', 'a2']); // what the turn reads
      expect(() =>
        store.meta.transaction(() => {
          store.appendMessage('t2', { role: 'user', content: 'rolled back' });
          throw new Error('abort');
        }),
      ).toThrow('abort');
      store.branches.settle();
      expect(contents()).toEqual(['u1', 'a2', 'u3', 'a4']);

      // An edit of a4 (from u3) makes a branch that takes the freed id: its path runs through u3.
      store.beginTurn(3);
      expect(contents()).toEqual(['u1', 'a2', 'u3']);
      store.appendMessage('t3', { role: 'user', content: 'edit' });
      store.branches.settle();
      expect(contents()).toEqual(['u1', 'a2', 'u3', 'edit']);
      expect(onPath()).toEqual(['u1', 'a2', 'u3', 'edit']);
    });
  });
});

describe('compactions on a tree', () => {
  it('hold only on the branches that hold every message they summarise', async () => {
    const id = newSessionId('compact-tree');
    await runInDurableObject(stubFor(id), async (_instance, state) => {
      const store = storeOf(state.storage, id, 6);
      store.compactions.add('t', { summary: 'first four', messagesSummarized: 4, totalSummarized: 4, tokensBefore: 40, tokensAfter: 4 });
      expect(store.compactions.latest()).toMatchObject({ upToSeq: 4, summary: 'first four' });
      const contents = (messages: { content: unknown }[]) => messages.map((message) => message.content);

      // A turn from a message before the summary's last: the summary does not hold there.
      store.beginTurn(2);
      expect(store.compactions.latest()).toBeUndefined();
      expect(contents(store.historyAfter(0))).toEqual(['u1', 'a2']);
      store.appendMessage('t2', { role: 'user', content: 'edit' });
      expect(store.compactions.latest()).toBeUndefined();
      expect(contents(store.historyAfter(0))).toEqual(['u1', 'a2', 'edit']);
      store.branches.settle();

      // A turn from a message after it: it holds, and the turn reads only what came after it on its path.
      store.beginTurn(5);
      expect(store.compactions.latest()).toMatchObject({ upToSeq: 4 });
      expect(contents(store.historyAfter(4))).toEqual(['u5']);
      store.appendMessage('t3', { role: 'assistant', content: 'again' });
      expect(contents(store.historyAfter(4))).toEqual(['u5', 'again']);
      store.branches.settle();

      // A summary made on the new branch, past where it forked, holds there and not on the first.
      store.compactions.add('t4', { summary: 'six', messagesSummarized: 2, totalSummarized: 6, tokensBefore: 60, tokensAfter: 6 });
      expect(store.compactions.latest()).toMatchObject({ upToSeq: 8, summary: 'six' });
      expect(store.branches.activate(6)).toBe(true);
      expect(store.compactions.latest()).toMatchObject({ upToSeq: 4, summary: 'first four' });
    });
  });
});

describe('the session’s message count', () => {
  it('is counted once, then counted on as messages are added: exact through turns, tool results, another hand’s write, a branch and a write rolled back', async () => {
    const id = newSessionId('count');
    await jsonTurn(id, { messages: [user('hello')] });
    await jsonTurn(id, { messages: [user('calculate 2*3')] }); // a call, and its result at the seq it reserved
    const stored = (sql: SqlStorage) => sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM messages').one().n;
    await runInDurableObject(stubFor(id), async (instance, state) => {
      const { history } = partsOf<{ stores: SessionStores }>(instance).stores;
      const sql = state.storage.sql;
      const exec = sql.exec;
      const counting: string[] = [];
      sql.exec = ((query: string, ...bindings: unknown[]) => {
        if (query.includes('COUNT(')) counting.push(query);
        return exec.call(sql, query, ...bindings);
      }) as typeof sql.exec;
      try {
        const count = history.messageCount();
        expect(count).toBe(stored(sql));
        counting.length = 0;
        expect(history.messageCount()).toBe(count);
        expect(counting).toEqual([]); // kept, not read again
        // A write rolled back (the same call id twice) is not counted.
        const twice = { type: 'tool_use' as const, toolCallId: 'call_twice', name: 'calculator', input: { expression: '1' } };
        expect(() => history.appendAssistant('turn_x', { role: 'assistant', content: [twice, twice] })).toThrow();
        expect(history.messageCount()).toBe(count);
        // Another store over the same storage (another hand) adds one: counted too.
        new HistoryStore(state.storage).appendMessage('turn_y', { role: 'user', content: 'elsewhere' });
        expect(history.messageCount()).toBe(count + 1);
        expect(history.messageCount()).toBe(stored(sql));
      } finally {
        sql.exec = exec;
      }
    });
    // Through the routes: after more turns, on a branch, and back on the first.
    await jsonTurn(id, { messages: [user('calculate 1+1')] });
    await jsonTurn(id, { messages: [user('another question')], parentId: 'msg_2' });
    expect((await session(id)).body.messageCount).toBe((await storedMessages(id)).filter((message) => message.role !== 'compaction').length);
    const branches = ((await (await fetchWorker(`/sessions/${id}/branches`)).json()) as { branches: { leafId: string; active: boolean; messageCount: number }[] }).branches;
    const other = branches.find((branch) => !branch.active)!;
    const activated = await fetchWorker(`/sessions/${id}/branches/${other.leafId}/activate`, { method: 'POST' });
    expect(activated.status, await activated.text()).toBe(200);
    await jsonTurn(id, { messages: [user('and now')] });
    expect((await session(id)).body.messageCount).toBe((await storedMessages(id)).filter((message) => message.role !== 'compaction').length);
    expect((await session(id)).body.messageCount).toBe(other.messageCount + 2);
  });
});
