/**
 * Which of a stand-in server's connections are still open, read from inside workerd. The servers
 * (in Node) number their connections and answer this path (`connections.ts`).
 */
export const CONNECTIONS_PATH = '/__sockets';

/**
 * The numbers of the connections still open at the stand-in served at `base` (a logged request's
 * `socket` is one), a moment after the Worker let go of a response: a body read to its end leaves
 * its connection for the next request, a cancelled one has it closed. The runtime closes it
 * asynchronously, hence the wait: without it a cancelled body's connection could still show open.
 */
export async function openConnections(base: string): Promise<number[]> {
  await new Promise((resolve) => setTimeout(resolve, 100));
  return (await fetch(`${base}${CONNECTIONS_PATH}`)).json() as Promise<number[]>;
}
