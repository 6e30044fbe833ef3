/** Query of `GET /sessions/{id}/messages`: a page size, the opaque cursor of the previous page, and the branch. */
import * as z from '../lib/zod';
import { messageIdSchema } from './message-ids';
import { numberCursor, pageLimit } from './paging';

export const messagesQuerySchema = z.strictObject({
  limit: pageLimit(500, 100),
  cursor: numberCursor.optional(),
  /** The branch that ends at this message (default: the active one). */
  leaf: messageIdSchema.optional(),
});

export type MessagesQuery = z.infer<typeof messagesQuerySchema>;
