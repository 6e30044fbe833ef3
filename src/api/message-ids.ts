/**
 * A stored message's id (docs/branches.md): stable, opaque to clients, `msg_` and the message's
 * place in its session's history. `parentId`, `?leaf=`, `upTo` and a branch's `leafId` take it.
 */
import * as z from '../lib/zod';

export const messageIdSchema = z.string().check(z.regex(/^msg_[1-9][0-9]{0,14}$/, { message: 'A message id is one the session gave ("msg_" and digits).' }));

export function messageId(seq: number): string {
  return `msg_${seq}`;
}

/** The seq a checked id names. */
export function seqOfMessageId(id: string): number {
  return Number(id.slice(4));
}
