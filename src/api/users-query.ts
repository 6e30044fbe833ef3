/** The queries of the user routes (docs/users.md): a page of the caller's sessions, and a range of days of their usage. */
import * as z from '../lib/zod';
import { cursorOf, pageLimit } from './paging';

export const usersQuerySchema = {
  list: z.strictObject({
    limit: pageLimit(100, 20),
    cursor: z.optional(cursorOf(/^[0-9]{1,15}:.{1,128}$/)),
  }),
  usage: z
    .strictObject({
      from: z.optional(z.iso.date()),
      to: z.optional(z.iso.date()),
    }).check(z.refine((query) => !query.from || !query.to || query.from <= query.to, { message: '"from" must not be after "to"', path: ['from'] })),
};
