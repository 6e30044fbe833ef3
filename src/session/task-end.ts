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
  private waiters: (() => void)[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;

  /**
   * Runs `run` in the next task, after the waiters before it; returns how to withdraw it. With no
   * waiter left the task is not scheduled: a timer that fires for nothing costs the runtime's CPU.
   * (Not `then`: an object with a `then` is a thenable, which `await` would take for a promise.)
   */
  join(run: () => void): () => void {
    this.waiters.push(run);
    this.timer ??= setTimeout(() => this.end(), 0);
    return () => {
      this.waiters = this.waiters.filter((waiter) => waiter !== run);
      if (this.waiters.length > 0 || this.timer === undefined) return;
      clearTimeout(this.timer);
      this.timer = undefined;
    };
  }

  wait(): Promise<void> {
    return new Promise((resolve) => void this.join(resolve));
  }

  private end(): void {
    const waiters = this.waiters;
    this.waiters = [];
    this.timer = undefined;
    for (const run of waiters) {
      try {
        run();
      } catch (error) {
        // One waiter's failure must not leave the others waiting (a turn's held events among them).
        console.error('a waiter for the end of the task failed', error);
      }
    }
  }
}
