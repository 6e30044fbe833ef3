/**
 * A response body we are done with, read to its end in the background rather than cancelled. The
 * runtime keeps a connection for the next request only once its response was read to the end:
 * cancelled after its last message (a model's `[DONE]`, an MCP server's answer, which only the
 * body's end follows), every such request opened a connection of its own (bench/PROFILE.md, "Below
 * JavaScript"). A body that goes on, or does not end within `ms`, is cancelled.
 */
export type Releasable = { read(): Promise<{ done: boolean }>; cancel(): Promise<unknown> };

/** How long a finished body may take to end before it is cancelled. */
const RELEASE_MS = 5_000;

export function releaseBody(reader: Releasable, ms = RELEASE_MS): void {
  const late = setTimeout(() => void reader.cancel().catch(() => {}), ms);
  void (async () => {
    try {
      while (!(await reader.read()).done);
    } catch {
      // Cancelled (late), or broken: either way the body is done with.
    } finally {
      clearTimeout(late);
    }
  })();
}

/** A response whose body we need no more, let go of the same way. */
export function releaseResponse(response: Response): void {
  if (response.body) releaseBody(response.body.getReader());
}
