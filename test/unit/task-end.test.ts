/**
 * The end of the object's current task, one for all who wait for it (src/session/task-end.ts): the
 * waiters of one task go on together in one later task, before what that task queued after them, so
 * that what they write is one commit; a waiter withdrawn never runs, one that throws stops none of
 * the others; a wait from that later task waits for the task after it.
 */
import { describe, expect, it, vi } from 'vitest';
import { TaskEnd } from '../../src/session/task-end';

describe('the end of the current task', () => {
  it('lets every waiter of one task go on in the same later task', async () => {
    const end = new TaskEnd();
    const marks: string[] = [];
    end.join(() => marks.push('a waiter'));
    void end.wait().then(() => {
      marks.push('a wait');
      // Queued in the task the waiters share: it runs after the other waiters, not a task later.
      queueMicrotask(() => marks.push('a microtask of that task'));
    });
    void end.wait().then(() => marks.push('another wait'));
    setTimeout(() => marks.push('a task queued after them'), 0);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(marks).toEqual(['a waiter', 'a wait', 'another wait', 'a microtask of that task', 'a task queued after them']);
  });

  it('runs a withdrawn waiter never, and the others as before', async () => {
    const end = new TaskEnd();
    const marks: string[] = [];
    const withdraw = end.join(() => marks.push('withdrawn'));
    end.join(() => marks.push('kept'));
    withdraw();
    const alone = new TaskEnd();
    alone.join(() => marks.push('alone, withdrawn'))();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(marks).toEqual(['kept']);
  });

  it('lets the other waiters go on when one throws', async () => {
    const end = new TaskEnd();
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      end.join(() => {
        throw new Error('storage failed');
      });
      let after = false;
      await Promise.race([end.wait().then(() => (after = true)), new Promise((resolve) => setTimeout(resolve, 20))]);
      expect(after).toBe(true);
    } finally {
      logged.mockRestore();
    }
  });

  it('has a wait from the later task wait for the task after it', async () => {
    const end = new TaskEnd();
    const first = end.wait();
    await first;
    const next = end.wait();
    let done = false;
    void next.then(() => (done = true));
    await Promise.resolve();
    expect(done).toBe(false);
    await next;
    expect(done).toBe(true);
  });
});
