/**
 * The upstream timer's phases. The idle phase notes each sign of life without setting a timer again:
 * its one timer, when it fires, must wait on for the time still left, and fire only after a real
 * silence of the idle timeout.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { UpstreamTimer } from '../../src/providers/upstream-timer';

const TIMEOUTS = { connectMs: 1000, firstByteMs: 500, idleMs: 100 };

describe('UpstreamTimer', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  const start = () => new UpstreamTimer(TIMEOUTS, new AbortController().signal, () => Date.now());

  it('lets a stream that keeps sending run far past the idle timeout', () => {
    const timer = start();
    timer.enter('first-byte');
    for (let chunk = 0; chunk < 50; chunk++) {
      timer.alive();
      vi.advanceTimersByTime(60);
    }
    expect(timer.signal.aborted).toBe(false);
    expect(timer.fired).toBe(false);
  });

  it('fires after the idle timeout of silence, counted from the last sign of life', () => {
    const timer = start();
    timer.alive();
    vi.advanceTimersByTime(90);
    timer.alive(); // the timer set at the first chunk fires at 100 ms and must wait on to 190
    vi.advanceTimersByTime(95);
    expect(timer.signal.aborted).toBe(false);
    vi.advanceTimersByTime(10);
    expect(timer.fired).toBe(true);
    expect(timer.signal.aborted).toBe(true);
    expect(timer.describe()).toBe('The model server did not send more of its stream within 100 ms.');
  });

  it('gives each phase its own limit: connect, then the first byte', () => {
    const connecting = start();
    vi.advanceTimersByTime(999);
    expect(connecting.fired).toBe(false);
    vi.advanceTimersByTime(1);
    expect(connecting.describe()).toBe('The model server did not answer within 1000 ms.');
    expect(connecting.fired).toBe(true);

    const waiting = start();
    waiting.enter('first-byte');
    vi.advanceTimersByTime(500);
    expect(waiting.fired).toBe(true);
    expect(waiting.describe()).toBe('The model server did not start its stream within 500 ms.');
  });

  it('follows the turn’s own abort without calling it a timeout', () => {
    const turn = new AbortController();
    const timer = new UpstreamTimer(TIMEOUTS, turn.signal, () => Date.now());
    turn.abort();
    expect(timer.signal.aborted).toBe(true);
    expect(timer.fired).toBe(false);
    timer.clear();
  });
});
