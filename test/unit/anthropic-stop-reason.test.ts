import { describe, expect, it } from 'vitest';
import { mapStopReason } from '../../src/providers/anthropic/map-stop-reason';

describe('anthropic stop_reason', () => {
  it.each([
    ['end_turn', 'end_turn'],
    ['stop_sequence', 'end_turn'],
    ['tool_use', 'tool_use'],
    ['max_tokens', 'max_tokens'],
    ['refusal', 'refusal'],
    ['pause_turn', 'paused'],
    [null, 'end_turn'],
  ])('%s is %s', (reason, expected) => {
    expect(mapStopReason(reason)).toBe(expected);
  });
});
