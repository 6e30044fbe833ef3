/** The bound on JSON nesting: checked without recursion, so that what it checks cannot overflow it. */
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../src/lib/json-depth';

const nested = (levels: number, open = '[', close = ']') => JSON.parse(`${open.repeat(levels)}${close.repeat(levels)}`);

describe('nestsDeeperThan', () => {
  it('counts arrays and objects, one level each, and nothing else', () => {
    expect(nestsDeeperThan('a string')).toBe(false);
    expect(nestsDeeperThan(null)).toBe(false);
    expect(nestsDeeperThan({}, 0)).toBe(true);
    expect(nestsDeeperThan({}, 1)).toBe(false);
    expect(nestsDeeperThan({ a: [{ b: 1 }] }, 2)).toBe(true);
    expect(nestsDeeperThan({ a: [{ b: 1 }] }, 3)).toBe(false);
  });

  it(`accepts ${MAX_JSON_DEPTH} levels and refuses one more`, () => {
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH + 1))).toBe(true);
  });

  it('walks values 100,000 levels deep without overflowing (a recursive walk would)', () => {
    const deep = JSON.parse(`${'{"x":'.repeat(100_000)}1${'}'.repeat(100_000)}`);
    expect(nestsDeeperThan(deep)).toBe(true);
    expect(nestsDeeperThan(deep, 200_000)).toBe(false);
  });

  it('finds the one deep branch among many shallow ones', () => {
    expect(nestsDeeperThan({ wide: Array.from({ length: 1000 }, () => ({ a: 1 })), deep: nested(70) })).toBe(true);
  });
});
