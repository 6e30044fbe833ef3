/**
 * Forks (`POST /sessions/{id}/fork`, docs/branches.md): the source session gives a copy of its active
 * branch up to a message (its messages, each compaction that holds on it, its title and rules) as
 * JSON lines; a new session of the same user takes the copy whole, in one transaction, or not at all.
 * The copy crosses an RPC boundary, so the new session reads it back through its schema.
 */
import { historyMessageSchema, type HistoryMessage } from '../api/content';
import { messageId } from '../api/message-ids';
import { ApiError } from '../lib/errors';
import { madeOnce } from '../lib/made-once';
import * as z from '../lib/zod';
import { permissionRuleSchema, type PermissionRule } from '../tools/permission-rules';
import { checkParent, isContinuable } from './branching';
import type { SessionStores } from './store/stores';

/** What one fork may copy: a branch past this is refused (413) rather than held in memory. */
export const MAX_FORK_BYTES = 64 * 1024 * 1024;
const PAGE = 100;
const TOO_LARGE = '{"tooLarge":true}';

export type BranchCopy = { sourceSessionId: string; upToId: string; title?: string; rules: PermissionRule[]; body: ReadableStream<Uint8Array> };

/** The copy's schemas, made by the first fork a session takes (`madeOnce`), not by every isolate as it loads. */
const copiedLineSchema = madeOnce(() =>
  z.strictObject({
    message: historyMessageSchema(),
    compaction: z.optional(z.strictObject({ summary: z.string(), summarizedMessages: z.int().check(z.nonnegative()) })),
  }),
);
const copyHeaderSchema = madeOnce(() => z.strictObject({ sourceSessionId: z.string(), upToId: z.string(), title: z.optional(z.string()), rules: z.array(permissionRuleSchema()) }));

/** The copy of the active branch up to `upToId` (default: its last message a turn could continue from). */
export function exportBranch(stores: SessionStores, sessionId: string, upToId: string | undefined): BranchCopy {
  const { history, meta, side } = stores;
  const upTo = upToId === undefined ? lastContinuable(stores) : checkParent(history, upToId, false);
  if (upTo === null) throw new ApiError(400, 'invalid_parent', 'This branch has no message a fork could end at yet.');
  const path = history.branches.pathTo(upTo);
  let after = 0;
  let size = 0;
  const encoder = new TextEncoder();
  // Read a page at a time as the new session takes it: a long branch is never all in memory here.
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const rows = history.rowsOn(path, after, PAGE);
      const last = rows.at(-1);
      if (!last) return controller.close();
      const markers = history.compactions.markersOn(path, after, last.seq);
      after = last.seq;
      const lines = rows.map((row) => {
        const marker = markers.get(row.seq);
        return JSON.stringify({ message: row.message, ...(marker ? { compaction: { summary: marker.summary, summarizedMessages: marker.summarizedMessages } } : {}) });
      });
      const chunk = `${lines.join('\n')}\n`;
      size += chunk.length;
      // Past the bound the copy ends with a line that says so (the taker refuses it): a copy is never
      // cancelled half-read, since a cancel across RPC fails the side that gives it.
      if (size > MAX_FORK_BYTES) {
        controller.enqueue(encoder.encode(`${TOO_LARGE}\n`));
        return controller.close();
      }
      controller.enqueue(encoder.encode(chunk));
    },
  });
  const title = meta.title();
  return { sourceSessionId: sessionId, upToId: messageId(upTo), ...(title !== undefined ? { title } : {}), rules: side.rules(), body };
}

/** The new session takes the copy: all of it in one transaction, or nothing (`409 session_exists` if the id is taken). */
export async function importFork(stores: SessionStores, sessionId: string, copy: BranchCopy, settled: () => Promise<void>): Promise<{ sessionId: string }> {
  const taken = () => new ApiError(409, 'session_exists', `A session with the id ${sessionId} exists already; fork to another id, or leave it out.`, { details: { sessionId } });
  // Read whole before anything else: a copy left half-read fails the session that gives it.
  const text = await new Response(copy.body).text();
  if (stores.meta.exists()) throw taken();
  const header = copyHeaderSchema().parse({ sourceSessionId: copy.sourceSessionId, upToId: copy.upToId, title: copy.title, rules: copy.rules });
  const raw = text.split('\n').filter((line) => line !== '');
  if (raw.at(-1) === TOO_LARGE) {
    throw new ApiError(413, 'fork_too_large', `A fork copies at most ${MAX_FORK_BYTES} bytes of history; fork from an earlier message (upTo).`);
  }
  const lines = raw.map((line) => copiedLineSchema().parse(JSON.parse(line)));
  // Awaited the copy: another request may have made the session since, or started its first turn,
  // whose opening is stored a task later (docs/decisions.md, 43).
  await settled();
  if (stores.meta.exists()) throw taken();
  const { meta, history, side } = stores;
  meta.transaction(() => {
    meta.ensureCreated(sessionId);
    for (const line of lines) copyMessage(stores, line.message, line.compaction);
    if (header.title !== undefined) meta.setTitle(`${header.title} (fork)`);
    meta.setForkedFrom({ sessionId: header.sourceSessionId, messageId: header.upToId });
    side.addRules(header.rules);
  });
  history.forget();
  return { sessionId };
}

function copyMessage(stores: SessionStores, message: HistoryMessage, compaction: { summary: string; summarizedMessages: number } | undefined): void {
  const seq = stores.history.copyMessage(message);
  if (compaction) stores.history.compactions.copy(seq, compaction.summary, compaction.summarizedMessages);
}

/** The last message of the active branch a turn could continue from: a trailing exchange still owed is left out. */
function lastContinuable(stores: SessionStores): number | null {
  let seq = stores.history.branches.activeLeaf();
  while (seq !== null && !isContinuable(stores.history, seq)) seq = stores.history.messageAt(seq)?.parentSeq ?? null;
  return seq;
}
