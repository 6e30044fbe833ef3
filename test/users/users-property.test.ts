/**
 * A stateful property of users (docs/users.md): three users, each with a few session ids they share
 * by name, make turns, delete sessions and erase themselves in random order, and every object
 * restarts now and then; after every step each user's list is exactly their own sessions, and
 * nobody's usage moves but their own.
 */
import { abortAllDurableObjects } from 'cloudflare:test';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { newUser, PRICED, type TestUser } from '../helpers/users';

type Step = { kind: 'turn' | 'delete'; user: number; session: number } | { kind: 'erase'; user: number } | { kind: 'restart' };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('turn' as const), user: fc.nat(2), session: fc.nat(2) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), user: fc.nat(2), session: fc.nat(2) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('erase' as const), user: fc.nat(2) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'restart' as const }) },
);

describe('users, stateful', () => {
  it('no user ever sees another’s session or usage, whatever the order of turns, deletes, erasures and restarts', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 4, maxLength: 14 }), async (steps) => {
        run++;
        const users: TestUser[] = [await newUser('p0'), await newUser('p1'), await newUser('p2')];
        // The same session ids for every user: each user's are their own objects.
        const ids = [0, 1, 2].map((index) => `shared-${run}-${index}`);
        const lists: Set<string>[] = users.map(() => new Set());
        const turns = users.map(() => 0);
        const act = async (next: Exclude<Step, { kind: 'restart' }>) => {
          const user = users[next.user]!;
          if (next.kind === 'turn') {
            const answer = await user.turn(ids[next.session]!, 'hello', { model: PRICED });
            if (answer.status === 200) {
              lists[next.user]!.add(ids[next.session]!);
              turns[next.user]!++;
            } else expect(answer.body.error.code).toBe('quota_exceeded');
          } else if (next.kind === 'delete') {
            const response = await user.call(`/sessions/${ids[next.session]}`, { method: 'DELETE' });
            expect(response.status).toBe(lists[next.user]!.has(ids[next.session]!) ? 204 : 404);
            lists[next.user]!.delete(ids[next.session]!);
          } else {
            const erased = await user.json('/users/me', { method: 'DELETE' });
            expect(erased.body.deletedSessions).toBe(lists[next.user]!.size);
            lists[next.user]!.clear();
          }
        };
        for (const next of steps) {
          // A restart: every object starts again, the users' and the sessions', and reads its state from storage.
          if (next.kind === 'restart') await abortAllDurableObjects();
          else await act(next);
          for (const [index, other] of users.entries()) {
            const listed = (await other.sessions()).sessions.map((entry: any) => entry.sessionId).sort();
            expect(listed, `user ${index} after ${JSON.stringify(next)}`).toEqual([...lists[index]!].sort());
            // Each turn is one call, and each new session may add its title's: never another user's.
            const calls = (await other.usage()).total.calls;
            expect(calls).toBeGreaterThanOrEqual(turns[index]!);
            expect(calls).toBeLessThanOrEqual(2 * turns[index]!);
          }
        }
      }),
      { numRuns: 12 },
    );
  }, 120_000);
});
