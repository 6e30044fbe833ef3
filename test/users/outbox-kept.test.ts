/**
 * The session's outbox keeps the rows it has not sent yet in memory once read (src/session/store/
 * outbox.ts): what it answers must always be what its table holds. A stateful property drives the
 * outbox of a real session object (its storage, its rollbacks) through writes, sends, failures and
 * rolled-back transactions, and after every step compares it with the table read afresh.
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import type { SessionObject } from '../../src/session/session-object';
import type { SessionParts } from '../../src/session/assembly';
import { reportSchema, type Report } from '../../src/users/reports';
import { sessionObject } from '../../src/users/owner';
import { newSessionId } from '../helpers/api';
import { partsOf } from '../helpers/session-parts';
import { newUser, usageSettles } from '../helpers/users';

type Step =
  | { kind: 'usage' | 'entry' | 'read' | 'sweep' | 'rollback' }
  | { kind: 'send' | 'fail'; upTo: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom<Step>({ kind: 'usage' }, { kind: 'entry' }) },
  { weight: 2, arbitrary: fc.constantFrom<Step>({ kind: 'read' }, { kind: 'sweep' }, { kind: 'rollback' }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constantFrom('send' as const, 'fail' as const), upTo: fc.nat(5) }) },
);

const usage = (at: number): Extract<Report, { kind: 'usage' }> => ({
  kind: 'usage',
  id: `use_${at}`,
  at,
  model: 'openai:m',
  usage: { inputTokens: at % 7, outputTokens: 1, cachedInputTokens: 0, cacheWriteInputTokens: 0, reasoningTokens: 0 },
  costUsd: null,
});

const entry = (version: number): Extract<Report, { kind: 'session' }> => ({
  kind: 'session',
  generation: 1,
  version,
  entry: { sessionId: 's', createdAt: '2026-12-01T00:00:00.000Z', updatedAt: '2026-12-01T00:00:00.000Z', messageCount: version % 5, running: false, pendingToolCalls: 0 },
});

describe('the outbox kept in memory', () => {
  it('answers what its table holds, whatever the order of writes, sends, failures and rollbacks', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 30 }), async (steps) => {
        const stub = sessionObject(env, { userId: 'outbox-kept' }, newSessionId('kept'));
        await runInDurableObject(stub, (instance: SessionObject, state) => {
          const { outbox, stores } = partsOf<SessionParts>(instance);
          /** Every row up to this id was taken: the outbox no longer sends it. */
          let takenUpTo = 0;
          let at = 0;
          const made = () => state.storage.sql.exec(`SELECT 1 FROM sqlite_master WHERE name = 'user_outbox'`).toArray().length > 0;
          const stored = () =>
            !made() ? [] : state.storage.sql
              .exec<{ id: number; body: string; attempts: number }>('SELECT id, body, attempts FROM user_outbox WHERE id > ? ORDER BY id', takenUpTo)
              .toArray()
              .map((row) => ({ id: row.id, report: reportSchema().parse(JSON.parse(row.body)), attempts: row.attempts }));
          for (const next of steps) {
            if (next.kind === 'usage') outbox.add(usage(++at));
            else if (next.kind === 'entry') outbox.putEntry(entry);
            else if (next.kind === 'read') outbox.waiting();
            else if (next.kind === 'sweep') outbox.sweep();
            else if (next.kind === 'rollback') {
              expect(() =>
                stores.meta.transaction(() => {
                  outbox.add(usage(++at));
                  outbox.putEntry(entry);
                  throw new Error('rolled back');
                }),
              ).toThrow('rolled back');
            } else if (next.kind === 'send' || next.kind === 'fail') {
              // A send of the first rows waiting: taken, or failed.
              const sent = outbox.waiting().slice(0, next.upTo + 1).at(-1);
              if (!sent) continue;
              if (next.kind === 'send') {
                outbox.taken(sent.id);
                takenUpTo = Math.max(takenUpTo, sent.id);
              } else outbox.failed(sent.id);
            }
            const rows = stored();
            expect(outbox.waiting()).toEqual(rows);
            expect(outbox.size()).toBe(rows.length);
            expect(outbox.usageWaiting()).toEqual(rows.flatMap(({ report }) => (report.kind === 'usage' ? [report] : [])));
          }
        });
      }),
      { numRuns: 40 },
    );
  });

  it('sends what a turn wrote without reading it back from its table', async () => {
    const user = await newUser('kept');
    const id = newSessionId('kept');
    expect((await user.turn(id, 'first')).status).toBe(200);
    await usageSettles(user, 2); // the answer and its title
    const statements: string[] = [];
    await runInDurableObject(sessionObject(env, { userId: user.userId }, id), (_instance, state) => {
      const exec = state.storage.sql.exec.bind(state.storage.sql);
      vi.spyOn(state.storage.sql, 'exec').mockImplementation((query, ...bindings) => (statements.push(query), exec(query, ...bindings)));
    });
    expect((await user.turn(id, 'second')).status).toBe(200);
    await usageSettles(user, 3);
    // The turn wrote its usage and its entry, and sent both; it read neither back.
    expect(statements.filter((query) => /INSERT INTO user_outbox/.test(query))).toHaveLength(2);
    expect(statements.filter((query) => /SELECT .* FROM user_outbox/.test(query))).toEqual([]);
  });

  it("sends what a new session's first turn wrote without reading it back: its table is new", async () => {
    const user = await newUser('kept-new');
    const id = newSessionId('kept-new');
    const statements: string[] = [];
    await runInDurableObject(sessionObject(env, { userId: user.userId }, id), (_instance, state) => {
      const exec = state.storage.sql.exec.bind(state.storage.sql);
      vi.spyOn(state.storage.sql, 'exec').mockImplementation((query, ...bindings) => (statements.push(query), exec(query, ...bindings)));
    });
    expect((await user.turn(id, 'first')).status).toBe(200);
    await usageSettles(user, 2); // the answer and its title
    expect(statements.filter((query) => /INSERT INTO user_outbox/.test(query)).length).toBeGreaterThanOrEqual(2);
    expect(statements.filter((query) => /SELECT .* FROM user_outbox/.test(query))).toEqual([]);
  });
});
