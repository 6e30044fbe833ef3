/**
 * The connections a stand-in server (in Node) accepted, numbered in order, and which are still open:
 * a test can then tell whether the Worker kept a connection for its next request.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export function numberConnections(server: Server): { of: (socket: Socket) => number; open: () => number[] } {
  const numbers = new WeakMap<Socket, number>();
  const open = new Set<number>();
  let accepted = 0;
  server.on('connection', (socket: Socket) => {
    const number = (accepted += 1);
    numbers.set(socket, number);
    open.add(number);
    socket.on('close', () => open.delete(number));
  });
  return { of: (socket) => numbers.get(socket) ?? 0, open: () => [...open] };
}
