/**
 * The typed client's user calls (`client/`, docs/users.md) against the real Worker: the list, the
 * usage, the caller's view, the export and the erasure; its types checked against the schemas.
 */
import { describe, expect, it } from 'vitest';
import { createClient } from '../../client/src/index';
import type * as ClientTypes from '../../client/src/types';
import type { sessionListSchema, usageReportSchema, userViewSchema } from '../../src/api/user-responses';
import type { z } from '../../src/lib/zod';
import { callWorker, newSessionId } from '../helpers/api';
import { newUser, PRICED, usageSettles } from '../helpers/users';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const typesAgree: [Same<ClientTypes.SessionList, z.infer<typeof sessionListSchema>>, Same<ClientTypes.UsageReport, z.infer<typeof usageReportSchema>>, Same<ClientTypes.UserView, z.infer<typeof userViewSchema>>] = [
  true,
  true,
  true,
];

describe('the typed client, for users', () => {
  it('lists, counts, exports and erases the caller’s sessions', async () => {
    expect(typesAgree).toEqual([true, true, true]);
    const alice = await newUser('client');
    const client = createClient({ baseUrl: 'http://localhost', token: alice.token, fetch: (input, init) => callWorker(new Request(input, init)) });
    const ids = [newSessionId('c1'), newSessionId('c2')];
    for (const id of ids) await client.turns.create(id, { messages: [{ role: 'user', content: 'hello' }], model: PRICED });
    const first = await client.sessions.list({ limit: 1 });
    expect(first.sessions.map((entry) => entry.sessionId)).toEqual([ids[1]]);
    const second = await client.sessions.list({ limit: 1, cursor: first.next! });
    expect(second).toEqual({ sessions: [expect.objectContaining({ sessionId: ids[0], messageCount: 2 })] });

    await usageSettles(alice, 4);
    const usage = await client.me.usage({ from: new Date().toISOString().slice(0, 10) });
    expect(usage.total).toMatchObject({ calls: 4, inputTokens: 80 });
    expect(await client.me.get()).toMatchObject({ userId: alice.userId, sessionCount: 2 });

    const lines: ClientTypes.ExportLine[] = [];
    for await (const line of client.me.export()) lines.push(line);
    expect(lines.filter((line) => line.type === 'session')).toHaveLength(2);
    expect(lines.filter((line) => line.type === 'message')).toHaveLength(4);

    expect(await client.me.delete()).toEqual({ deletedSessions: 2 });
    expect((await client.sessions.list()).sessions).toEqual([]);
  });
});
