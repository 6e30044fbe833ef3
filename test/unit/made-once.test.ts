/**
 * `madeOnce` (src/lib/made-once.ts): the schemas a module used to make as it loaded are made by
 * their first use, once; every later use gets the same object (a schema made at each use would cost
 * every parse what the module's load no longer does).
 */
import { describe, expect, it } from 'vitest';
import { scheduleRequestSchema } from '../../src/api/schedule-requests';
import { madeOnce } from '../../src/lib/made-once';
import { reportSchema, reportsSchema } from '../../src/users/reports';

describe('madeOnce', () => {
  it('makes its value at the first call, not before, and never again', () => {
    let made = 0;
    const value = madeOnce(() => ({ made: ++made }));
    expect(made).toBe(0);
    const first = value();
    expect(value()).toBe(first);
    expect(made).toBe(1);
  });

  it('keeps a value that is falsy', () => {
    let made = 0;
    const value = madeOnce(() => (made++, undefined));
    value();
    value();
    expect(made).toBe(1);
  });

  it('gives the same schema at every use', () => {
    expect(reportSchema()).toBe(reportSchema());
    expect(reportsSchema()).toBe(reportsSchema());
    expect(scheduleRequestSchema()).toBe(scheduleRequestSchema());
    expect(reportsSchema().parse([{ kind: 'deleted', sessionId: 's', generation: 1 }])).toEqual([{ kind: 'deleted', sessionId: 's', generation: 1 }]);
  });
});
