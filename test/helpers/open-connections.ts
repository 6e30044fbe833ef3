/**
 * Which of a stand-in server's connections are still open, read from inside workerd. The servers
 * (in Node) number their connections and answer this path (`connections.ts`).
 */
export const CONNECTIONS_PATH = '/__sockets';

/** The numbers of the connections still open at the stand-in served at `base` (a logged request's `socket` is one). */
export async function openConnections(base: string): Promise<number[]> {
  return (await fetch(`${base}${CONNECTIONS_PATH}`)).json() as Promise<number[]>;
}
