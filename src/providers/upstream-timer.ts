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
  /** When the stream last showed life, in the idle phase (`alive`). */
  private lastAlive = 0;
  fired = false;

  constructor(
    private readonly timeouts: UpstreamTimeouts,
    parent: AbortSignal,
    private readonly now: () => number = Date.now,
  ) {
    if (parent.aborted) this.controller.abort(parent.reason);
    else parent.addEventListener('abort', () => this.controller.abort(parent.reason), { once: true });
    this.enter('connect');
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Starts a phase. */
  enter(phase: UpstreamPhase): void {
    this.current = phase;
    this.lastAlive = this.now();
    this.arm(this.limit(phase));
  }

  /**
   * A sign of life from the stream: the idle phase starts, or goes on. It only notes the time: a
   * model streams thousands of chunks, and a timer cleared and set again for each cost more than
   * reading them. The idle timer, when it fires, waits on for the time still left.
   */
  alive(): void {
    if (this.current !== 'idle') return this.enter('idle');
    this.lastAlive = this.now();
  }

  private arm(ms: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      const left = this.current === 'idle' ? this.lastAlive + this.timeouts.idleMs - this.now() : 0;
      if (left > 0) return this.arm(left);
      this.fired = true;
      this.controller.abort(new Error(`upstream ${this.current} timeout`));
    }, ms);
  }

  private limit(phase: UpstreamPhase): number {
    return phase === 'connect' ? this.timeouts.connectMs : phase === 'first-byte' ? this.timeouts.firstByteMs : this.timeouts.idleMs;
  }

  /** Why the timer fired, as a sentence. */
  describe(): string {
    return `The model server did not ${PHASE_WORDS[this.current]} within ${this.limit(this.current)} ms.`;
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
