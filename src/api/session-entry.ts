/**
 * A session in its user's list (docs/users.md): the fields it shares with the session's own view
 * (`GET /sessions/{id}`, `responses.ts`), and what it adds. Parsed at run time (a session's report
 * to its user's object, the list read back), so apart from the answers' schemas, which only the
 * OpenAPI document and the tests build.
 */
import { madeOnce } from '../lib/made-once';
import * as z from '../lib/zod';

/** What a session's entry and its view both say. */
export const sharedSessionFields = madeOnce(() => ({
  sessionId: z.string(),
  title: z.optional(z.string()),
  createdAt: z.string(),
  updatedAt: z.string(),
  messageCount: z.int(),
  running: z.boolean(),
}));

/** Made by its first use, as `usageSchema` is. */
export const sessionEntrySchema = madeOnce(() =>
  z.withMeta(
    z.strictObject({
      ...sharedSessionFields(),
      pendingToolCalls: z.withMeta(z.int(), { description: 'How many tool calls wait for a result or a permission.' }),
      parentSessionId: z.withMeta(z.optional(z.string()), { description: 'The session a sub-agent ran for, or a fork was copied from.' }),
    }),
    { description: 'A session in the list of its user’s sessions.' },
  ),
);

export type SessionEntry = z.infer<ReturnType<typeof sessionEntrySchema>>;
