/**
 * Work that runs one at a time, such as sending what an outbox holds: a call while it runs asks for
 * one more run after it (for what was added meanwhile), never a second run beside it. Never rejects:
 * a failed run is logged, and its owner decides when to try again.
 */
export class SingleFlight {
  private running: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly work: () => Promise<void>,
    /** What the log says when a run fails. */
    private readonly failure: string,
  ) {}

  /** Starts a run, or asks the running one to run once more. */
  kick(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.loop()
      .catch((error: unknown) => console.warn(this.failure, error))
      .finally(() => (this.running = undefined));
  }

  /** Kicks, and resolves once the runs have ended. */
  async now(): Promise<void> {
    this.kick();
    await this.running;
  }

  /** The runs in progress, if any. */
  get current(): Promise<void> | undefined {
    return this.running;
  }

  private async loop(): Promise<void> {
    do {
      this.again = false;
      await this.work();
    } while (this.again);
  }
}
