/**
 * The shapes every paged list shares (messages, turns, a user's sessions): a page size, the opaque
 * cursor of the page before (that page's `next`), and the `next` of an answer.
 */
import { madeOnce } from '../lib/made-once';
import * as z from '../lib/zod';

/** `limit`: 1 to `max`, `fallback` when not given. */
export const pageLimit = (max: number, fallback: number) => z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(max)), fallback);

/** A cursor of this form (a list's own), refused in one sentence for every list. */
export const cursorOf = (form: RegExp) => z.string().check(z.regex(form, { message: 'The cursor is the "next" value of a previous page.' }));

/** The cursor of a list paged by a number (a message's or a turn's place); made by its first use, as the lists' queries are. */
export const numberCursor = madeOnce(() => z.pipe(cursorOf(/^[0-9]{1,15}$/), z.transform(Number)));

export const nextCursor = madeOnce(() => z.withMeta(z.optional(z.string()), { description: 'The cursor of the next page; absent on the last.' }));
