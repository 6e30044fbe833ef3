/**
 * The compactions that summarise a session's history (the originals stay in `messages`): each is a
 * summary of every message on the path to its last one, so it holds on the branches that hold that
 * message, and only there (docs/branches.md).
 */
import type { Range, BranchStore } from './branches';
import type { SessionMeta } from './meta';

export type CompactionRecord = { upToSeq: number; summary: string; summarized: number };

/** How a compaction shows in `GET /sessions/{id}/messages`: marked, after what it summarises. */
export type CompactionMarker = { role: 'compaction'; summary: string; summarizedMessages: number };

export class CompactionStore {
  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly meta: SessionMeta,
    private readonly branches: BranchStore,
  ) {}

  private get sql(): SqlStorage {
    return this.storage.sql;
  }

  /** The latest compaction of the branch turns read: one that summarises only messages on it. */
  latest(path: Range[] = this.branches.head()): CompactionRecord | undefined {
    if (!this.meta.has('compactions') || path.length === 0) return undefined;
    const bounds = new Map(path.map((range) => [range.branch, range.upTo]));
    const rows = this.sql.exec<{ up_to_seq: number; summary: string; summarized: number; branch: number }>(
      `SELECT up_to_seq, summary, summarized, branch FROM compactions WHERE branch IN (${path.map(() => '?').join(', ')}) ORDER BY up_to_seq DESC`,
      ...path.map((range) => range.branch),
    );
    // A summary holds on a branch when its last message is on it: the path to a message is one.
    for (const row of rows) {
      if (row.up_to_seq <= (bounds.get(row.branch) ?? 0)) return { upToSeq: row.up_to_seq, summary: row.summary, summarized: row.summarized };
    }
    return undefined;
  }

  /** Records a summary of the next `messagesSummarized` messages after the previous compaction. */
  add(
    turnId: string,
    compaction: { summary: string; messagesSummarized: number; totalSummarized: number; tokensBefore: number; tokensAfter: number },
  ): void {
    const path = this.branches.head();
    const after = this.latest(path)?.upToSeq ?? 0;
    const last = this.branches.rowsAlong<[seq: number, branch: number]>(path, after, compaction.messagesSummarized, 'seq, branch').at(compaction.messagesSummarized - 1);
    if (last === undefined) throw new Error(`Cannot find the last of ${compaction.messagesSummarized} messages to summarise.`);
    this.meta.ensure('compactions');
    this.sql.exec(
      `INSERT INTO compactions (turn_id, up_to_seq, summary, summarized, tokens_before, tokens_after, created_at, branch) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      turnId,
      last[0],
      compaction.summary,
      compaction.totalSummarized,
      compaction.tokensBefore,
      compaction.tokensAfter,
      this.meta.now(),
      last[1],
    );
  }

  /** A compaction a fork copies, ending at the copied message `upToSeq`. */
  copy(upToSeq: number, summary: string, summarized: number): void {
    this.meta.ensure('compactions');
    this.sql.exec(
      `INSERT INTO compactions (turn_id, up_to_seq, summary, summarized, tokens_before, tokens_after, created_at, branch) VALUES ('fork', ?, ?, ?, 0, 0, ?, ?)`,
      upToSeq,
      summary,
      summarized,
      this.meta.now(),
      this.branches.branchOf(upToSeq) ?? 1,
    );
  }

  /** The compactions whose last message is on `path`, after `after` and up to `upTo`: where they stand in a page. */
  markersOn(path: Range[], after: number, upTo: number): Map<number, CompactionMarker> {
    if (!this.meta.has('compactions')) return new Map();
    const bounds = new Map(path.map((range) => [range.branch, range.upTo]));
    const rows = this.sql
      .exec<{ up_to_seq: number; summary: string; summarized: number; branch: number }>(
        `SELECT up_to_seq, summary, summarized, branch FROM compactions WHERE up_to_seq > ? AND up_to_seq <= ?`,
        after,
        upTo,
      )
      .toArray()
      .filter((row) => row.up_to_seq <= (bounds.get(row.branch) ?? 0));
    return new Map(rows.map((row) => [row.up_to_seq, { role: 'compaction' as const, summary: row.summary, summarizedMessages: row.summarized }]));
  }
}
