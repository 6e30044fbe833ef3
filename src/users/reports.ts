/**
 * What a session tells its user's object (docs/users.md): each model call's usage, the session's
 * entry in the list after a turn starts or ends, and its deletion. Reports wait in the session's
 * outbox until the user's object has taken them, so they cross RPC and are read back from storage:
 * schemas. Each is safe to apply twice: a usage report by its id, an entry by its version.
 * A turn's start is told without the counts, which cost a read of the branch: the turn's end tells them.
 */
import { usageSchema } from '../api/usage';
import { sessionEntrySchema } from '../api/session-entry';
import { madeOnce } from '../lib/made-once';
import * as z from '../lib/zod';

/**
 * `generation`: when the session was created (ms). A deleted session's later reports (from an outbox
 * retry) carry its old generation, and never bring it back; a new session of the same id has a new one.
 * Made by its first use (`madeOnce`): every session's isolate loads this module, and parses a report
 * only when it reads its outbox back from storage.
 */
export const reportSchema = madeOnce(() => {
  const generation = z.int().check(z.gte(0));
  const entry = sessionEntrySchema();
  return z.discriminatedUnion('kind', [
    z.strictObject({
      kind: z.literal('usage'),
      id: z.string().check(z.minLength(1), z.maxLength(64)),
      at: z.int(),
      model: z.string(),
      usage: usageSchema(),
      costUsd: z.nullable(z.number().check(z.gte(0))),
    }),
    z.strictObject({ kind: z.literal('session'), generation, version: z.number(), entry }),
    /** A turn started: the entry runs (its counts are the last turn's, or none for a new session). */
    z.strictObject({
      kind: z.literal('started'),
      generation,
      version: z.number(),
      entry: z.pick(entry, { sessionId: true, title: true, createdAt: true, updatedAt: true, parentSessionId: true }),
    }),
    z.strictObject({ kind: z.literal('deleted'), sessionId: z.string(), generation }),
  ]);
});

export type Report = z.infer<ReturnType<typeof reportSchema>>;
export const reportsSchema = madeOnce(() => z.array(reportSchema()).check(z.maxLength(500)));
