/**
 * The end of the object's current task, one for all who wait for it (src/session/task-end.ts): the
 * waiters of one task go on together in one later task, before what that task queued after them, so
 * that what they write is one commit; a wait from that later task waits for the task after it.
 */
import { describe, expect, it } from 'vitest';
import { TaskEnd } from '../../src/session/task-end';

describe('the end of the current task', () => {
  it('lets every waiter of one task go on in the same later task', async () => {
    const end = new TaskEnd();
    const marks: string[] = [];
    const first = end.wait();
    const second = end.wait();
    expect(second).toBe(first);
    void first.then(() => marks.push('first'));
    void second.then(() => marks.push('second'));
    setTimeout(() => marks.push('a task queued after them'), 0);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(marks).toEqual(['first', 'second', 'a task queued after them']);
  });

  it('has a wait from the later task wait for the task after it', async () => {
    const end = new TaskEnd();
    const first = end.wait();
    await first;
    const next = end.wait();
    expect(next).not.toBe(first);
    let done = false;
    void next.then(() => (done = true));
    await Promise.resolve();
    expect(done).toBe(false);
    await next;
    expect(done).toBe(true);
  });
});
