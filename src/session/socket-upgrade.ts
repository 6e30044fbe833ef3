/**
 * The header names by which the Worker hands an authenticated upgrade to the session object
 * (`http/routes/socket.ts` sets them, `socket-hub.ts` reads them). Apart from the socket's door, whose
 * frames' schemas a Worker isolate that only upgrades sockets need not load.
 */
export const SOCKET_SESSION_HEADER = 'x-session-id';
export const SOCKET_USER_HEADER = 'x-user-id';
export const SOCKET_EXPIRES_HEADER = 'x-token-expires';
