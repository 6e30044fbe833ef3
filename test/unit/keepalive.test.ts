/**
 * The keepalive alarm of a turn: set once the turn has run a moment, never in the task that starts it
 * (where its write would hold the model request until stored), once for a burst of turns, not at
 * all when an alarm is due sooner, and not after the session was erased.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Housekeeping } from '../../src/session/housekeeping';
import type { SessionStores } from '../../src/session/store/stores';

function housekeeping() {
  const alarms: number[] = [];
  const storage = {
    setAlarm: async (at: number) => void alarms.push(at),
    deleteAlarm: async () => {},
    deleteAll: async () => {},
  } as unknown as DurableObjectStorage;
  const stores = { meta: { forget: () => {} }, history: { forget: () => {} } } as unknown as SessionStores;
  return { alarms, keeper: new Housekeeping(storage, stores, () => true, () => {}, []) };
}

describe('the keepalive of a turn', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('is set once the turn has run 250 ms, not as it starts', () => {
    const { alarms, keeper } = housekeeping();
    keeper.turnStarted();
    expect(alarms).toEqual([]);
    vi.advanceTimersByTime(249);
    expect(alarms).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(alarms).toEqual([Date.now() + 30_000]);
  });

  it('is set once for a burst of turns, and not again while it is due within the keepalive', () => {
    const { alarms, keeper } = housekeeping();
    keeper.turnStarted();
    keeper.turnStarted();
    vi.advanceTimersByTime(250);
    keeper.turnStarted();
    vi.advanceTimersByTime(10_000);
    expect(alarms).toHaveLength(1);
  });

  it('is not set when an alarm is due sooner, nor once the session was erased', async () => {
    const due = housekeeping();
    due.keeper.knownAlarm(Date.now() + 5_000);
    due.keeper.turnStarted();
    vi.advanceTimersByTime(1_000);
    expect(due.alarms).toEqual([]);

    const erased = housekeeping();
    erased.keeper.turnStarted();
    await erased.keeper.erase(() => {});
    vi.advanceTimersByTime(1_000);
    expect(erased.alarms).toEqual([]);
  });
});
