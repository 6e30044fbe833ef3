/**
 * The route table's order (`src/http/router.ts`): each request meets the user's check once, before
 * whatever answers it, and the admission once after it for a POST; the doors that authenticate on
 * their own meet neither. Read from the table as itty-router walks it: every route whose method is
 * the request's (or ALL) and whose pattern takes the path, in order.
 */
import { describe, expect, it } from 'vitest';
import { withAdmission } from '../../src/http/admission';
import { withUser } from '../../src/http/auth';
import { router } from '../../src/http/router';

type Handler = (...args: unknown[]) => unknown;

/** The handlers a request meets, in order, up to the first that is neither middleware. */
function walk(method: string, path: string): Handler[] {
  const met: Handler[] = [];
  for (const [routeMethod, pattern, handlers] of router.routes as unknown as [string, RegExp, Handler[]][]) {
    if ((routeMethod !== method && routeMethod !== 'ALL') || !pattern.test(path)) continue;
    for (const handler of handlers) {
      met.push(handler);
      if (handler !== withUser && handler !== withAdmission) return met;
    }
  }
  return met;
}

const authenticated: [string, string][] = [
  ['POST', '/sessions/s-1/turns'],
  ['GET', '/sessions/s-1/turns'],
  ['GET', '/sessions/s-1/turns/turn_1'],
  ['GET', '/sessions/s-1/turns/turn_1/events'],
  ['POST', '/sessions/s-1/turns/turn_1/cancel'],
  ['GET', '/sessions'],
  ['PUT', '/sessions'],
  ['GET', '/sessions/s-1'],
  ['DELETE', '/sessions/s-1'],
  ['GET', '/sessions/s-1/messages'],
  ['POST', '/sessions/s-1/fork'],
  ['POST', '/sessions/s-1/schedules'],
  ['GET', '/usage'],
  ['GET', '/users/me'],
  ['POST', '/ag-ui'],
];

describe('the route table', () => {
  it.each(authenticated)('%s %s meets the user’s check once, first, and the admission once after it for a POST', (method, path) => {
    const met = walk(method, path);
    expect(met.filter((handler) => handler === withUser)).toHaveLength(1);
    expect(met[0]).toBe(withUser);
    expect(met.filter((handler) => handler === withAdmission)).toHaveLength(method === 'POST' ? 1 : 0);
    if (method === 'POST') expect(met[1]).toBe(withAdmission);
    expect(met.length).toBe(method === 'POST' ? 3 : 2);
  });

  it.each([
    ['GET', '/sessions/s-1/ws'],
    ['POST', '/mcp'],
    ['POST', '/a2a'],
    ['POST', '/api/stream'],
    ['POST', '/harness/chat'],
    ['GET', '/healthz'],
    ['GET', '/.well-known/agent-card.json'],
  ])('%s %s authenticates on its own, or needs no user: it meets neither', (method, path) => {
    expect(walk(method, path)).toHaveLength(1);
  });
});
