/**
 * The Worker: routing, validation and auth at the edge (`http/`); each session's state in its Durable
 * Object. This module and the objects' shells import nothing at startup but the runtime's own: a new
 * isolate starts at the platform's floor, and each part is loaded by the first event that needs it,
 * so an isolate that only routes never builds the session, and a session's object never builds the
 * routes (bench/PROFILE.md, "Cold start").
 */
import type { Env } from './env';

export { SessionObject } from './session/session-object';
export { UserObject } from './users/user-object';

export default {
  async fetch(request, env, context) {
    const { handleRequest } = await import('./http/handle-request');
    return handleRequest(request, env, context);
  },
} satisfies ExportedHandler<Env>;
