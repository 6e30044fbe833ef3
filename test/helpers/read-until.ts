/**
 * Reads a stream until what came is enough, and fails the test with what came if the stream ends
 * first. A bare `while (!enough) seen.push((await reader.read()).value)` never ends on a stream that
 * ended: an ended reader's reads resolve at once, so the loop spins in microtasks, no timer fires (the
 * test's timeout is one), and the runtime and the whole run hang. A turn that fails before its first
 * text (a model call timed out on a loaded machine) ends its stream that way.
 */
export async function readUntil<T>(reader: ReadableStreamDefaultReader<T>, enough: (seen: T[]) => boolean, what: string): Promise<T[]> {
  const seen: T[] = [];
  while (!enough(seen)) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`the stream ended before ${what}; it carried ${JSON.stringify(seen).slice(0, 2000)}`);
    seen.push(value);
  }
  return seen;
}
