/**
 * The history's tree (docs/branches.md): which segment each message joins, the path a read takes,
 * the session's branches, and which one is active. A segment is a run of messages made one after
 * another on one line; a branch is the path from the first message to a segment's last message,
 * through its ancestors' segments up to where each forked (kept with the segment: it never changes).
 * Reads of a path take each segment by `(branch, seq)`, so a turn on a long branch of a big tree
 * reads its own path only; making or activating a branch writes one row.
 */
import * as z from '../../lib/zod';
import type { SessionMeta } from './meta';

/** The part of a segment a path takes: its messages up to `upTo`, inclusive. */
export type Range = { branch: number; upTo: number };

/** A seq past every message: a path's last segment is taken to its end. */
export const END_OF_BRANCH = Number.MAX_SAFE_INTEGER;

/** A path as a key: what is kept of a path (its count, its messages) holds for the same key only. */
export function pathKey(path: Range[]): string {
  return path.map((range) => `${range.branch}:${range.upTo}`).join(',');
}

const ancestorsSchema = z.array(z.tuple([z.int(), z.int()]));

/**
 * How many messages a path holds, kept once counted and then counted on (`added`): messages are
 * only ever added (a tool result at the seq its call reserved, too), so a count read again each time
 * only grew with the history. Read at each turn's end for the user's list, it cost a turn a read of
 * every message of its branch (bench/PROFILE.md, "A count that grew with the history"). Kept per
 * storage, as `meta.ts` keeps the table names, so that every store over it counts what another
 * adds; dropped when a transaction rolls back (`SessionMeta.transaction`: one that adds messages
 * goes through it) and after a `deleteAll` (`forget`).
 */
const countedOf = new WeakMap<DurableObjectStorage, { key: string; path: Range[]; count: number }>();

export type Place = { branch: number; parent: number | null; from?: Range[] };

export type BranchInfo = { branch: number; leafSeq: number; active: boolean; messageCount: number; updatedAt: number; forkSeq?: number };

export class BranchStore {
  /**
   * Set while a turn continues from a message other than the active leaf (`parentId`), until the
   * turn stores its first message, which makes its branch: a turn that stores nothing makes none.
   */
  private base: { seq: number | null } | undefined;
  private readonly ancestorsOf = new Map<number, Range[]>();

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly meta: SessionMeta,
  ) {
    // A rolled back write may have been counted, and a branch it made read: its id is free again.
    meta.onRollback(() => {
      countedOf.delete(storage);
      this.ancestorsOf.clear();
    });
  }

  private get sql(): SqlStorage {
    return this.storage.sql;
  }

  /** After `deleteAll`, or at the end of a turn: nothing kept holds any more. */
  forget(): void {
    this.base = undefined;
    this.ancestorsOf.clear();
    countedOf.delete(this.storage);
  }

  /** How many messages `path` holds. */
  count(path: Range[]): number {
    const key = pathKey(path);
    let counted = countedOf.get(this.storage);
    if (counted?.key !== key) countedOf.set(this.storage, (counted = { key, path, count: path.reduce((sum, range) => sum + this.countOn(range), 0) }));
    return counted.count;
  }

  /** A message was stored on `branch` at `seq`: a path counted that takes it counts it. */
  added(branch: number, seq: number): void {
    const counted = countedOf.get(this.storage);
    if (counted?.path.some((range) => range.branch === branch && seq <= range.upTo)) counted.count++;
  }

  /** The path turns read: the base of a branching turn until it stores a message, else the active branch. */
  head(): Range[] {
    if (this.base) return this.base.seq === null ? [] : this.pathTo(this.base.seq);
    const active = this.meta.activeBranch();
    return [...this.ancestors(active), { branch: active, upTo: END_OF_BRANCH }];
  }

  /** The path from the first message to the message `seq` (which must exist). */
  pathTo(seq: number): Range[] {
    const branch = this.branchOf(seq);
    if (branch === undefined) throw new Error(`No message ${seq} to read a path to.`);
    return [...this.ancestors(branch), { branch, upTo: seq }];
  }

  branchOf(seq: number): number | undefined {
    return this.sql.exec<{ branch: number }>(`SELECT branch FROM messages WHERE seq = ?`, seq).toArray()[0]?.branch;
  }

  /** The turn about to run continues from `seq` (null: it makes a new first message). */
  continueFrom(seq: number | null): void {
    this.base = { seq };
  }

  /** The turn ended: a branch it stored nothing on was never made. */
  settle(): void {
    this.base = undefined;
  }

  /**
   * Where a turn's next message goes (a tool result goes after its call instead): its segment and
   * parent, and, for a turn's first message from a base, the path to the base (`from`), which the
   * message's branch then continues as the active one.
   */
  place(): Place {
    const base = this.base;
    if (!base) {
      const branch = this.meta.activeBranch();
      return { branch, parent: this.lastOf(branch) ?? this.forkSeqOf(branch) };
    }
    this.base = undefined;
    const from = base.seq === null ? [] : this.pathTo(base.seq);
    let branch: number;
    if (base.seq === null) branch = this.hasMessages() ? this.open(null, from) : this.meta.activeBranch();
    else branch = this.isLeaf(base.seq) ? (this.branchOf(base.seq) as number) : this.open(base.seq, from);
    this.meta.setActiveBranch(branch);
    return { branch, parent: base.seq, from };
  }

  /** The last message of the active branch (null in a session with none). */
  activeLeaf(): number | null {
    const active = this.meta.activeBranch();
    return this.lastOf(active) ?? this.forkSeqOf(active);
  }

  /**
   * A stored message nothing stored continues from: neither its segment nor a segment forked at it
   * (an assistant message whose results are still owed is the leaf of its branch).
   */
  isLeaf(seq: number): boolean {
    const branch = this.branchOf(seq);
    if (branch === undefined) return false;
    if (this.sql.exec(`SELECT 1 FROM messages WHERE branch = ? AND seq > ? LIMIT 1`, branch, seq).toArray().length > 0) return false;
    return this.sql.exec(`SELECT 1 FROM branches WHERE fork_seq = ? LIMIT 1`, seq).toArray().length === 0;
  }

  /** Makes the branch that ends at `leafSeq` the active one; false when it is not a leaf. */
  activate(leafSeq: number): boolean {
    if (!this.isLeaf(leafSeq)) return false;
    this.meta.setActiveBranch(this.branchOf(leafSeq) as number);
    return true;
  }

  /** Every branch (one per segment: a segment's last message is a leaf), oldest first. */
  list(): BranchInfo[] {
    const active = this.meta.activeBranch();
    const rows = this.sql
      .exec<{ id: number; fork_seq: number | null; leaf: number; own: number }>(
        `SELECT b.id, b.fork_seq, MAX(m.seq) AS leaf, COUNT(m.seq) AS own FROM branches AS b JOIN messages AS m ON m.branch = b.id GROUP BY b.id ORDER BY b.id`,
      )
      .toArray();
    // Nested branches share their ancestors' ranges: each range is counted once.
    const counted = new Map<string, number>();
    const countOn = (range: Range) => {
      const key = `${range.branch}:${range.upTo}`;
      let count = counted.get(key);
      if (count === undefined) counted.set(key, (count = this.countOn(range)));
      return count;
    };
    return rows.map((row) => {
      const before = this.ancestors(row.id).reduce((sum, range) => sum + countOn(range), 0);
      const updatedAt = this.sql.exec<{ created_at: number }>(`SELECT created_at FROM messages WHERE seq = ?`, row.leaf).one().created_at;
      return {
        branch: row.id,
        leafSeq: row.leaf,
        active: row.id === active,
        messageCount: before + row.own,
        updatedAt,
        ...(row.fork_seq !== null ? { forkSeq: row.fork_seq } : {}),
      };
    });
  }

  /** The seqs of the messages whose parent is `parent` (null: first messages), oldest first. */
  children(parent: number | null): number[] {
    const forks = this.sql
      .exec<{ first: number | null }>(
        `SELECT (SELECT MIN(seq) FROM messages WHERE branch = b.id) AS first FROM branches AS b WHERE b.fork_seq IS ?`,
        parent,
      )
      .toArray()
      .flatMap((row) => (row.first === null ? [] : [row.first]));
    if (parent !== null) {
      const branch = this.branchOf(parent);
      const next = this.sql.exec<{ seq: number | null }>(`SELECT MIN(seq) AS seq FROM messages WHERE branch = ? AND seq > ?`, branch ?? 0, parent).one().seq;
      if (next !== null) forks.push(next);
    }
    return [...new Set(forks)].sort((a, b) => a - b);
  }

  /** The messages with siblings have their parent among these: the seqs branches forked at (null for a second first message). */
  forkPoints(): Set<number | null> {
    const points = this.sql.exec<{ fork_seq: number | null }>(`SELECT fork_seq FROM branches`).toArray().map((row) => row.fork_seq);
    const roots = points.filter((point) => point === null).length;
    return new Set(points.filter((point) => point !== null || roots > 1));
  }

  /**
   * The message rows of `path` after `after`, in order, at most `limit`: each segment's part read by
   * its `(branch, seq)` index, `columns` (a constant list) of each, as an array of their values (raw:
   * `history.ts`, `MESSAGE_COLUMNS`).
   */
  rowsAlong<Row extends SqlStorageValue[]>(path: Range[], after: number, limit: number, columns: string): Row[] {
    const rows: Row[] = [];
    for (const range of path) {
      if (range.upTo <= after || rows.length >= limit) continue;
      const cursor = this.sql.exec(
        `SELECT ${columns} FROM messages WHERE branch = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?`,
        range.branch,
        after,
        range.upTo,
        Math.min(limit - rows.length, Number.MAX_SAFE_INTEGER),
      );
      for (const row of cursor.raw<Row>()) rows.push(row);
    }
    return rows;
  }

  private countOn(range: Range): number {
    return this.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM messages WHERE branch = ? AND seq <= ?`, range.branch, range.upTo).one().n;
  }

  private lastOf(branch: number): number | null {
    return this.sql.exec<{ seq: number | null }>(`SELECT MAX(seq) AS seq FROM messages WHERE branch = ?`, branch).one().seq;
  }

  private forkSeqOf(branch: number): number | null {
    return this.sql.exec<{ fork_seq: number | null }>(`SELECT fork_seq FROM branches WHERE id = ?`, branch).toArray()[0]?.fork_seq ?? null;
  }

  private hasMessages(): boolean {
    return this.sql.exec(`SELECT 1 FROM messages LIMIT 1`).toArray().length > 0;
  }

  /** A new branch forked at `forkSeq` (null: a new first message), whose ancestors are the path to it. */
  private open(forkSeq: number | null, ancestors: Range[]): number {
    return this.sql
      .exec<{ id: number }>(
        `INSERT INTO branches (parent, fork_seq, ancestors, created_at) VALUES (?, ?, ?, ?) RETURNING id`,
        ancestors.at(-1)?.branch ?? null,
        forkSeq,
        JSON.stringify(ancestors.map((range) => [range.branch, range.upTo])),
        this.meta.now(),
      )
      .one().id;
  }

  /** The ranges of the segments a segment continues (root first): written once, kept. */
  private ancestors(branch: number): Range[] {
    let ranges = this.ancestorsOf.get(branch);
    if (!ranges) {
      const row = this.sql.exec<{ ancestors: string }>(`SELECT ancestors FROM branches WHERE id = ?`, branch).toArray()[0];
      ranges = row ? ancestorsSchema.parse(JSON.parse(row.ancestors)).map(([from, upTo]) => ({ branch: from, upTo })) : [];
      this.ancestorsOf.set(branch, ranges);
    }
    return ranges;
  }
}
