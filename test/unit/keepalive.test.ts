/**
 * The keepalive alarm of a turn: set once the turn has run a moment, never in the task that starts it
 * (where its write would hold the model request until stored), once for a burst of turns, not at
 * all when an alarm is due sooner, and not after the session was erased; for turns that ended
 * sooner, only the alarm that prunes their logs. A turn no client follows has no first event to
 * hold: its keepalive is set as it starts.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Housekeeping } from '../../src/session/housekeeping';
import type { SessionStores } from '../../src/session/store/stores';

function housekeeping(running = () => true) {
  const alarms: number[] = [];
  const storage = {
    setAlarm: async (at: number) => void alarms.push(at),
    deleteAlarm: async () => {},
    deleteAll: async () => {},
  } as unknown as DurableObjectStorage;
  const stores = { meta: { forget: () => {} }, history: { forget: () => {} } } as unknown as SessionStores;
  return { alarms, keeper: new Housekeeping(storage, stores, running, () => {}, []) };
}

describe('the keepalive of a turn', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('is set once the turn has run 250 ms, not as it starts', () => {
    const { alarms, keeper } = housekeeping();
    keeper.turnStarted(true);
    expect(alarms).toEqual([]);
    vi.advanceTimersByTime(249);
    expect(alarms).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(alarms).toEqual([Date.now() + 30_000]);
  });

  it('is set as the turn starts when no client follows it (a background turn)', () => {
    const { alarms, keeper } = housekeeping();
    keeper.turnStarted(false);
    expect(alarms).toEqual([Date.now() + 30_000]);
    vi.advanceTimersByTime(10_000);
    expect(alarms).toHaveLength(1);
  });

  it('is set once for a burst of turns, and not again while it is due within the keepalive', () => {
    const { alarms, keeper } = housekeeping();
    keeper.turnStarted(true);
    keeper.turnStarted(true);
    vi.advanceTimersByTime(250);
    keeper.turnStarted(true);
    vi.advanceTimersByTime(10_000);
    expect(alarms).toHaveLength(1);
  });

  it('is not set for turns that ended sooner: only the alarm for their logs to expire, once', () => {
    let running = true;
    const { alarms, keeper } = housekeeping(() => running);
    keeper.turnStarted(true);
    vi.advanceTimersByTime(20);
    running = false;
    vi.advanceTimersByTime(230);
    expect(alarms).toEqual([Date.now() + 24 * 3600_000]);
    // The next short turns find it due before their own logs expire: no write.
    for (let turn = 0; turn < 3; turn++) {
      running = true;
      keeper.turnStarted(true);
      vi.advanceTimersByTime(10);
      running = false;
      vi.advanceTimersByTime(60_000);
    }
    vi.advanceTimersByTime(1_000);
    expect(alarms).toHaveLength(1);
  });

  it('is not set when an alarm is due sooner, nor once the session was erased', async () => {
    const due = housekeeping();
    due.keeper.knownAlarm(Date.now() + 5_000);
    due.keeper.turnStarted(true);
    vi.advanceTimersByTime(1_000);
    expect(due.alarms).toEqual([]);

    const erased = housekeeping();
    erased.keeper.turnStarted(true);
    await erased.keeper.erase(() => {});
    vi.advanceTimersByTime(1_000);
    expect(erased.alarms).toEqual([]);
  });
});
