/**
 * The end of the object's current task, one for all who wait for it: they go on together, in one
 * later task, so what they write then is one commit. A Durable Object commits a task's writes
 * together, and sends nothing (a model request, an event, a report) while a write of its own is
 * unconfirmed: two commits one after the other held the next event for both. A turn's opening and a
 * later step's events wait here after their model request (docs/decisions.md, 43 and 44), and the
 * user's reports after a model call's usage (`user-link.ts`), so that the request is on its way
 * before the writes, and the writes are one commit.
 */
export class TaskEnd {
  private next: Promise<void> | undefined;

  wait(): Promise<void> {
    this.next ??= new Promise((resolve) =>
      setTimeout(() => {
        this.next = undefined;
        resolve();
      }, 0),
    );
    return this.next;
  }
}
