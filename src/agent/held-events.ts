/**
 * What the loop tells between a model call's end and the next step's request, held so that the
 * request can go first (`TurnDeps.requestSent`): the writes those events make (the assistant message,
 * its calls' states, the tools' results) would hold the request for their commit, since a Durable
 * Object sends nothing while a write of its own is unconfirmed (docs/decisions.md, 44). Held only
 * until the end of the task they came in: a tool that takes its time is seen to run, its progress as
 * it comes. So what waits for the request is what came in the request's own task. The end of an
 * earlier task is this class's own timer, not the host's (`TurnDeps.requestSent` is only awaited in
 * the request's task): there the events' writes and the usage's are two commits, on no request's path.
 */
import type { AgentEvent, Emit } from './events';

/** Events held for the host's `emit` (`tell`), while the loop holds them. */
export class HeldEvents {
  private queue: AgentEvent[] | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** An event that threw as it was told at the end of a task, thrown to the loop at its next `take`. */
  private failure: { error: unknown } | undefined;

  constructor(private readonly tell: Emit) {}

  get holding(): boolean {
    return this.queue !== undefined;
  }

  /** While holding: `event` is told at the end of this task, or when the loop takes it. */
  push(event: AgentEvent): void {
    (this.queue ??= []).push(event);
    this.timer ??= setTimeout(() => this.flush(), 0);
  }

  hold(): void {
    this.queue ??= [];
  }

  /** Stops holding: what is held, in order, for the loop to tell. */
  take(): AgentEvent[] {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    const queue = this.queue ?? [];
    this.queue = undefined;
    const failure = this.failure;
    this.failure = undefined;
    if (failure) throw failure.error;
    return queue;
  }

  /** Stops holding, and tells what was held. */
  release(): void {
    for (const event of this.take()) this.tell(event);
  }

  private flush(): void {
    this.timer = undefined;
    const queue = this.queue ?? [];
    if (this.queue) this.queue = [];
    try {
      for (const event of queue) this.tell(event);
    } catch (error) {
      this.failure ??= { error };
    }
  }
}
