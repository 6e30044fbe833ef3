/**
 * A turn's events, numbered from 1 (the SSE `id:` of every wire format) and kept for resumable
 * streams and idempotent replays. Events are buffered in memory and written packed, many to a row,
 * when the buffer fills and when the turn ends; readers see storage and buffer together, so a
 * follower never misses an event that was emitted. A run of text deltas of one block is kept as one
 * entry, its texts in a list: most of a long answer's events are deltas, and written one object
 * each, their keys and ids were most of what the log serialised and stored (bench/PROFILE.md,
 * "The deltas of the event log").
 */
import type { AgentEvent, ModelCallUsage, TurnError } from '../agent/events';
import { emptyUsage } from '../agent/usage';
import { madeOnce } from '../lib/made-once';
import * as z from '../lib/zod';
import type { TurnStore } from './store/turns';

/**
 * Read back leniently: the union is ours, written by this code; the check guards the frame. Made by
 * its first read (`madeOnce`): a turn only writes the log, and most isolates never read it back.
 */
const batchSchema = madeOnce(() =>
  z.array(
    z.union([
      z.object({ seq: z.int().check(z.positive()), event: z.looseObject({ type: z.string() }) }),
      z.object({ seq: z.int().check(z.positive()), blockId: z.string(), deltas: z.array(z.string()) }),
    ]),
  ),
);

export type LoggedEvent = { seq: number; event: AgentEvent };
/** Text deltas of one block, numbered from `seq` on, one after another: how the log keeps them. */
type DeltaRun = { seq: number; blockId: string; deltas: string[] };
type Entry = LoggedEvent | DeltaRun;
export type TurnStop = Extract<AgentEvent, { type: 'turn-stop' }>;

/**
 * The `turn-stop` of a turn ended from outside its loop (cut by an eviction, refused as it left the
 * queue, crashed): `error` says why; `spent`, what its model calls used, if it made any.
 */
export function errorStop(turnId: string, error: TurnError, calibration: number, spent?: { usage: TurnStop['usage']; modelCalls: ModelCallUsage[] }): TurnStop {
  return { type: 'turn-stop', turnId, stopReason: 'error', usage: spent?.usage ?? emptyUsage(), modelCalls: spent?.modelCalls ?? [], at: Date.now(), calibration, error };
}

/** Writes a lone closing event of a turn, as batch `seq` of its log. */
export function logStop(store: TurnStore, stop: TurnStop, seq: number): void {
  store.appendEvents(stop.turnId, seq, JSON.stringify([{ seq, event: stop }]));
}

/**
 * The buffer is written when it holds this many events (so a crash loses fewer than this many ids,
 * and recovery numbers its closing event past them), this many characters, or an event that has
 * waited this long. Each write is a commit, and an object's outgoing bytes wait for its commits: at
 * 256 events a row, a 20,000-delta answer held its stream 78 times (bench/PROFILE.md, "The event
 * log's commits"). A fast answer now takes few rows; a slow one is still written every few seconds,
 * about as often as 256 events come at a model's pace.
 */
export const FLUSH_EVENTS = 4096;
const FLUSH_CHARS = 512_000;
const FLUSH_AFTER_MS = 5_000;

/** How long a finished turn's events stay, and how many turns keep theirs. */
export const EVENT_LOG_RETENTION_MS = 24 * 60 * 60 * 1000;
export const EVENT_LOG_MAX_TURNS = 64;

export class TurnEventLog {
  private buffer: Entry[] = [];
  /** Events in the buffer (a run holds many). */
  private buffered = 0;
  private bufferChars = 0;
  /** When the oldest buffered event came. */
  private bufferedSince = 0;
  private nextSeq = 1;

  constructor(
    private readonly store: TurnStore,
    readonly turnId: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** The id the last appended event took (0 before any): an append whose write failed still took one. */
  get lastSeq(): number {
    return this.nextSeq - 1;
  }

  append(event: AgentEvent): number {
    const seq = this.nextSeq++;
    const now = this.now();
    if (this.buffered === 0) this.bufferedSince = now;
    this.buffered++;
    // A cheap size estimate: deltas dominate, and their text is most of their JSON.
    if (event.type === 'text-delta') {
      // The run before it, if this delta follows it directly: its seqs run on without a gap.
      const last = this.buffer[this.buffer.length - 1];
      if (last && 'deltas' in last && last.blockId === event.blockId) {
        last.deltas.push(event.delta);
        this.bufferChars += 4 + event.delta.length;
      } else {
        this.buffer.push({ seq, blockId: event.blockId, deltas: [event.delta] });
        this.bufferChars += 48 + event.delta.length;
      }
    } else {
      this.buffer.push({ seq, event });
      this.bufferChars += 64 + ('delta' in event ? event.delta.length : 'content' in event ? JSON.stringify(event.content).length : 256);
    }
    if (this.buffered >= FLUSH_EVENTS || this.bufferChars >= FLUSH_CHARS || now - this.bufferedSince >= FLUSH_AFTER_MS || event.type === 'turn-stop') this.flush();
    return seq;
  }

  /**
   * Writes the buffer. The buffer is taken first, so that a failure (a full disk, an event that
   * cannot be serialised) never leaves it to fail again at every later flush; an event that cannot
   * be serialised is left out of the log, the rest of its batch kept.
   */
  flush(): void {
    const batch = this.buffer;
    const first = batch[0];
    if (!first) return;
    this.buffer = [];
    this.buffered = 0;
    this.bufferChars = 0;
    this.store.appendEvents(this.turnId, first.seq, serialiseBatch(batch));
  }

  /** Every event so far, stored and buffered, in order. */
  read(): LoggedEvent[] {
    return [...readStoredEvents(this.store, this.turnId), ...eventsOf(this.buffer)];
  }
}

/** The events of log entries, each run of deltas as the events it holds. */
function eventsOf(entries: Entry[]): LoggedEvent[] {
  return entries.flatMap((entry) =>
    'deltas' in entry ? entry.deltas.map((delta, index) => ({ seq: entry.seq + index, event: { type: 'text-delta' as const, blockId: entry.blockId, delta } })) : [entry],
  );
}

/** The events of one stored batch (its JSON, as `flush` wrote it). */
export function eventsOfBatch(json: string): LoggedEvent[] {
  return eventsOf(batchSchema().parse(JSON.parse(json)) as Entry[]);
}

function serialiseBatch(batch: Entry[]): string {
  try {
    return JSON.stringify(batch);
  } catch (error) {
    console.error('an event could not be logged', error);
    const kept = batch.flatMap((entry) => {
      try {
        return [JSON.stringify(entry)];
      } catch {
        return [];
      }
    });
    return `[${kept.join(',')}]`;
  }
}

export function readStoredEvents(store: TurnStore, turnId: string): LoggedEvent[] {
  return store.readEvents(turnId).flatMap(eventsOfBatch);
}
