/** Query of `GET /sessions/{id}/messages`: a page size, the opaque cursor of the previous page, and the branch. */
import * as z from '../lib/zod';
import { messageIdSchema } from './message-ids';

export const messagesQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(500).default(100),
  cursor: z
    .string()
    .regex(/^[0-9]{1,15}$/, { message: 'The cursor is the "next" value of a previous page.' })
    .transform(Number)
    .optional(),
  /** The branch that ends at this message (default: the active one). */
  leaf: messageIdSchema.optional(),
});

export type MessagesQuery = z.infer<typeof messagesQuerySchema>;
