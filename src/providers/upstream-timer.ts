/**
 * The timeouts of one upstream request, by phase: `connect` until the response headers, `first-byte`
 * until the first chunk of the body, `idle` between chunks. Its signal aborts when the running phase
 * runs out, or when the turn's own signal aborts; `fired` tells the two apart.
 */
export type UpstreamTimeouts = { connectMs: number; firstByteMs: number; idleMs: number };

export type UpstreamPhase = 'connect' | 'first-byte' | 'idle';

const PHASE_WORDS: Record<UpstreamPhase, string> = {
  connect: 'answer',
  'first-byte': 'start its stream',
  idle: 'send more of its stream',
};

export class UpstreamTimer {
  private readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private current: UpstreamPhase = 'connect';
  fired = false;

  constructor(
    private readonly timeouts: UpstreamTimeouts,
    parent: AbortSignal,
  ) {
    if (parent.aborted) this.controller.abort(parent.reason);
    else parent.addEventListener('abort', () => this.controller.abort(parent.reason), { once: true });
    this.enter('connect');
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Starts a phase (or restarts `idle` on every sign of life). */
  enter(phase: UpstreamPhase): void {
    this.current = phase;
    if (this.timer !== undefined) clearTimeout(this.timer);
    const ms = phase === 'connect' ? this.timeouts.connectMs : phase === 'first-byte' ? this.timeouts.firstByteMs : this.timeouts.idleMs;
    this.timer = setTimeout(() => {
      this.fired = true;
      this.controller.abort(new Error(`upstream ${phase} timeout`));
    }, ms);
  }

  /** Why the timer fired, as a sentence. */
  describe(): string {
    const ms = this.current === 'connect' ? this.timeouts.connectMs : this.current === 'first-byte' ? this.timeouts.firstByteMs : this.timeouts.idleMs;
    return `The model server did not ${PHASE_WORDS[this.current]} within ${ms} ms.`;
  }

  /** A read that rejects on abort, even if the body ignores it. */
  race<T>(promise: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(new Error('aborted'));
      if (this.controller.signal.aborted) return onAbort();
      this.controller.signal.addEventListener('abort', onAbort, { once: true });
      promise.then(resolve, reject).finally(() => this.controller.signal.removeEventListener('abort', onAbort));
    });
  }

  clear(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
  }
}
