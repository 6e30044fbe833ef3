/** Query of `GET /sessions/{id}/messages`: a page size, the opaque cursor of the previous page, and the branch. */
import { madeOnce } from '../lib/made-once';
import * as z from '../lib/zod';
import { messageIdSchema } from './message-ids';
import { numberCursor, pageLimit } from './paging';

/** Made by the first read of a session's messages (`madeOnce`): a new isolate's first request is most often a turn. */
export const messagesQuerySchema = madeOnce(() =>
  z.strictObject({
    limit: pageLimit(500, 100),
    cursor: z.optional(numberCursor()),
    /** The branch that ends at this message (default: the active one). */
    leaf: z.optional(messageIdSchema),
  }),
);

export type MessagesQuery = z.infer<ReturnType<typeof messagesQuerySchema>>;
