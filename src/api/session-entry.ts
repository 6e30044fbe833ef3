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

/** Made by its first use, as `usageSchema` is; described where the OpenAPI document is made (`http/openapi-parts.ts`), not in the upload. */
export const sessionEntrySchema = madeOnce(() =>
  z
    .strictObject({
      ...sharedSessionFields(),
      pendingToolCalls: z.int(),
      parentSessionId: z.optional(z.string()),
    }),
);

export type SessionEntry = z.infer<ReturnType<typeof sessionEntrySchema>>;
