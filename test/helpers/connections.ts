/**
 * The connections a stand-in server (in Node) accepted, numbered in order, and which are still open
 * (`GET /__sockets`, which a test in workerd reads with `open-connections.ts`): a test can then tell
 * whether the Worker kept a connection for its next request.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { CONNECTIONS_PATH } from './open-connections.ts';

/** Numbers `server`'s connections: `of` tells a request's, `served` answers `GET /__sockets` (true when it did). */
export function numberConnections(server: Server): { of: (socket: Socket) => number; served: (request: IncomingMessage, response: ServerResponse) => boolean } {
  const numbers = new WeakMap<Socket, number>();
  const open = new Set<number>();
  let accepted = 0;
  server.on('connection', (socket: Socket) => {
    const number = (accepted += 1);
    numbers.set(socket, number);
    open.add(number);
    socket.on('close', () => open.delete(number));
  });
  return {
    of: (socket) => numbers.get(socket) ?? 0,
    served: (request, response) => {
      if (request.method !== 'GET' || request.url !== CONNECTIONS_PATH) return false;
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify([...open]));
      return true;
    },
  };
}

