import { describe, expect, it } from 'vitest';
import { currentTimeTool } from '../../src/tools/current-time';

const at = (iso: string) => ({
  signal: new AbortController().signal,
  now: () => new Date(iso),
  notes: { save: () => ({ id: 1, text: '', savedAt: '' }), list: () => [] },
});

describe('current_time', () => {
  it('answers in UTC by default', async () => {
    expect(await currentTimeTool.execute({}, at('2026-11-29T18:30:15.250Z'))).toBe('2026-11-29T18:30:15.250Z');
  });

  it.each([
    ['Asia/Tokyo', '2026-11-30T03:30:15.250+09:00'],
    ['America/New_York', '2026-11-29T13:30:15.250-05:00'],
    ['Asia/Kolkata', '2026-11-30T00:00:15.250+05:30'],
  ])('answers in %s with its offset', async (timezone, expected) => {
    expect(await currentTimeTool.execute({ timezone }, at('2026-11-29T18:30:15.250Z'))).toBe(expected);
  });

  it('rejects an unknown zone with a message the model can act on', async () => {
    await expect(currentTimeTool.execute({ timezone: 'Mars/Olympus' }, at('2026-11-29T18:30:15Z'))).rejects.toThrow('Unknown time zone "Mars/Olympus"');
  });
});
