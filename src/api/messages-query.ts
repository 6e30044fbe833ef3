/** Query of `GET /sessions/{id}/messages`: a page size and the opaque cursor of the previous page. */
import { z } from '../lib/zod';

export const messagesQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(500).default(100),
  cursor: z
    .string()
    .regex(/^[0-9]{1,15}$/, { message: 'The cursor is the "next" value of a previous page.' })
    .transform(Number)
    .optional(),
});

export type MessagesQuery = z.infer<typeof messagesQuerySchema>;
