/**
 * When a turn stores what it opens with (src/session/turn-opening.ts): at once, or when the loop
 * opens the turn; after its first model request, a task later, so that the request has left before
 * the writes (a write in the same task would hold it); the launcher's promise settles with the writes.
 */
import { describe, expect, it } from 'vitest';
import { TaskEnd } from '../../src/session/task-end';
import { openTurn as openWith } from '../../src/session/turn-opening';

const openTurn = (write: () => void, late: boolean) => {
  const taskEnd = new TaskEnd();
  return openWith(write, late, () => taskEnd.wait());
};

describe('a turn’s opening', () => {
  it('is stored at once when it may not wait', async () => {
    const marks: string[] = [];
    const { opening, opened } = openTurn(() => marks.push('written'), false);
    expect(marks).toEqual(['written']);
    expect(opening).toBeUndefined();
    await opened;
  });

  it('waits for the loop, then, after a request was sent, for the next task, then writes', async () => {
    const marks: string[] = [];
    const { opening, opened } = openTurn(() => marks.push('written'), true);
    let settled = false;
    void opened.then(() => (settled = true));
    expect(marks).toEqual([]);
    // A task queued before the opening runs before its writes: the request it sent is out by then.
    setTimeout(() => marks.push('the task after the request'), 0);
    const done = opening!(true);
    await Promise.resolve();
    expect(marks).toEqual([]);
    await done;
    expect(marks).toEqual(['the task after the request', 'written']);
    await opened;
    expect(settled).toBe(true);
  });

  it('writes without waiting a task when no request was sent', async () => {
    const marks: string[] = [];
    const { opening } = openTurn(() => marks.push('written'), true);
    setTimeout(() => marks.push('a later task'), 0);
    await opening!(false);
    expect(marks).toEqual(['written']);
  });

  it('a write that fails rejects both the loop’s opening and the launcher’s promise', async () => {
    const { opening, opened } = openTurn(() => {
      throw new Error('storage failed');
    }, true);
    await expect(opening!(true)).rejects.toThrow('storage failed');
    await expect(opened).rejects.toThrow('storage failed');
  });
});
