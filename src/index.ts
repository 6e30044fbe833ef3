/** The Worker: routing, validation and auth at the edge; each session's state in its Durable Object. */
import type { Env } from './env';
import { router } from './http/router';

export { RateLimiterObject } from './limits/rate-limiter-object';
export { SessionObject } from './session/session-object';

export default {
  fetch: (request, env, context) => router.fetch(request, env, context),
} satisfies ExportedHandler<Env>;
