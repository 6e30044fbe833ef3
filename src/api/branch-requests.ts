/** The body of `POST /sessions/{id}/fork` (docs/branches.md). Strict: unknown fields are a 400. */
import * as z from '../lib/zod';
import { messageIdSchema } from './message-ids';
import { sessionIdSchema } from './turn-request';

export const forkRequestSchema = z.strictObject({
  /** The new session's id; made up when absent (`409 session_exists` if taken). */
  sessionId: z.optional(sessionIdSchema),
  /** The last message to copy (the rules of `parentId`); default: the active branch, all of it. */
  upTo: z.optional(messageIdSchema),
});

export type ForkRequest = z.infer<typeof forkRequestSchema>;
