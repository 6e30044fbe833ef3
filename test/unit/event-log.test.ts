/**
 * When a turn's event log is written: at 4,096 events, at about 512 KB, once its oldest buffered event has
 * waited 5 s, and at the turn's stop; never more often (each write is a commit that holds the
 * object's outgoing bytes). Readers see the stored rows and the buffer together, in order.
 */
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/agent/events';
import { eventsOfBatch, TurnEventLog } from '../../src/session/event-log';
import type { TurnStore } from '../../src/session/store/turns';

/** A store that keeps the rows in memory, and a clock the test moves. */
function logWithClock() {
  const rows: { firstSeq: number; json: string }[] = [];
  const store = { appendEvents: (_turnId: string, firstSeq: number, json: string) => void rows.push({ firstSeq, json }), readEvents: () => rows.map((row) => row.json) } as unknown as TurnStore;
  const clock = { now: 1_000_000 };
  return { rows, clock, log: new TurnEventLog(store, 'turn_1', () => clock.now) };
}

/** The policy as docs/decisions.md (7) states it, not read from the code it checks. */
const FLUSH_EVENTS = 4_096;
const FLUSH_AFTER_MS = 5_000;

const delta = (text: string): AgentEvent => ({ type: 'text-delta', blockId: 'blk_1', delta: text });
const stop = { type: 'turn-stop', turnId: 'turn_1', stopReason: 'end_turn', usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, cacheWriteInputTokens: 0, reasoningTokens: 0 }, modelCalls: [], calibration: 1 } as unknown as AgentEvent;

describe('TurnEventLog', () => {
  it('writes a fast answer in rows of 4,096 events, and the rest at the stop', () => {
    const { rows, log } = logWithClock();
    for (let index = 0; index < FLUSH_EVENTS - 1; index++) log.append(delta('w '));
    expect(rows).toHaveLength(0);
    log.append(delta('w '));
    expect(rows.map((row) => [row.firstSeq, eventsOfBatch(row.json).length])).toEqual([[1, FLUSH_EVENTS]]);
    for (let index = 0; index < 10; index++) log.append(delta('x '));
    log.append(stop);
    expect(rows.map((row) => [row.firstSeq, eventsOfBatch(row.json).length])).toEqual([
      [1, FLUSH_EVENTS],
      [FLUSH_EVENTS + 1, 11],
    ]);
    expect(log.read().map((entry) => entry.seq)).toEqual(Array.from({ length: FLUSH_EVENTS + 11 }, (_, index) => index + 1));
  });

  it('writes a slow answer once its oldest buffered event has waited 5 s', () => {
    const { rows, clock, log } = logWithClock();
    for (let index = 0; index < 9; index++) {
      log.append(delta(`w${index} `));
      clock.now += 600;
    }
    // The first event came 4.8 s before the ninth: still buffered, and read from the buffer.
    expect(rows).toHaveLength(0);
    expect(log.read()).toHaveLength(9);
    log.append(delta('w9 ')); // 5.4 s after the first
    expect(rows.map((row) => [row.firstSeq, eventsOfBatch(row.json).length])).toEqual([[1, 10]]);
    // The next window starts at the next event, not at the write.
    clock.now += 60_000;
    log.append(delta('late '));
    expect(rows).toHaveLength(1);
    clock.now += FLUSH_AFTER_MS;
    log.append(delta('later '));
    expect(rows.map((row) => [row.firstSeq, eventsOfBatch(row.json).length])).toEqual([
      [1, 10],
      [11, 2],
    ]);
  });

  it('reads back every event as it was appended, a run of text deltas kept as one entry of their texts', () => {
    const { rows, log } = logWithClock();
    const events: AgentEvent[] = [
      { type: 'text-start', blockId: 'blk_1' },
      delta('a'),
      delta('b'),
      { type: 'thinking-delta', blockId: 'blk_2', delta: 'hm' },
      delta('c'),
      { type: 'text-delta', blockId: 'blk_3', delta: 'd' },
      { type: 'text-delta', blockId: 'blk_3', delta: '' },
      { type: 'text-end', blockId: 'blk_3' },
    ] as AgentEvent[];
    for (const event of events.slice(0, 5)) log.append(event);
    log.flush();
    for (const event of events.slice(5)) log.append(event);
    const expected = events.map((event, index) => ({ seq: index + 1, event }));
    // Half stored, half in the buffer; then all stored.
    expect(log.read()).toEqual(expected);
    log.append(stop);
    expect(rows.flatMap((row) => eventsOfBatch(row.json))).toEqual([...expected, { seq: events.length + 1, event: stop }]);
    // The first batch: the run of blk_1's two deltas is one entry, the delta after the thinking another.
    expect(JSON.parse(rows[0]!.json)).toEqual([
      { seq: 1, event: events[0] },
      { seq: 2, blockId: 'blk_1', deltas: ['a', 'b'] },
      { seq: 4, event: events[3] },
      { seq: 5, blockId: 'blk_1', deltas: ['c'] },
    ]);
  });

  it('writes at about 512 KB of text, whatever the count', () => {
    const { rows, log } = logWithClock();
    const big = 'x'.repeat(64 * 1024);
    for (let index = 0; index < 7; index++) log.append(delta(big));
    expect(rows).toHaveLength(0);
    log.append(delta(big));
    expect(rows.map((row) => [row.firstSeq, eventsOfBatch(row.json).length])).toEqual([[1, 8]]);
  });
});
