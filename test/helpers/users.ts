/** Users of the users project's deployment (test/users/): each test's own, with a token, and what it may call. */
import { expect, vi } from 'vitest';
import { fetchWorker, newSessionId, readSse } from './api';
import { openSocket } from './socket';
import { mint } from './tokens';

/** The model whose recorded stream reports usage (20 in, 2 out) and has a price (1000 / 2000 USD per million). */
export const PRICED = 'openai:replay/openai/gpt-4o-text-usage';
/** What one call of it costs. */
export const CALL_USD = (20 * 1000 + 2 * 2000) / 1_000_000;

export type TestUser = Awaited<ReturnType<typeof newUser>>;

export async function newUser(label = 'u', claims: { jurisdiction?: unknown } = {}) {
  const userId = `${label}-${newSessionId()}`;
  const token = await mint({ sub: userId, ...claims });
  const call = (path: string, init: RequestInit = {}) =>
    fetchWorker(path, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(init.headers as Record<string, string>) } });
  const json = async (path: string, init: RequestInit = {}) => {
    const response = await call(path, init);
    return { status: response.status, headers: response.headers, body: (await response.json()) as any };
  };
  return {
    userId,
    token,
    call,
    json,
    /** A turn in JSON mode, with the priced model unless told. */
    turn: (sessionId: string, content: string, extra: Record<string, unknown> = {}) =>
      json(`/sessions/${sessionId}/turns`, { method: 'POST', body: JSON.stringify({ messages: [{ role: 'user', content }], stream: 'none', model: PRICED, ...extra }) }),
    streamTurn: async (sessionId: string, content: string, extra: Record<string, unknown> = {}) =>
      readSse(await call(`/sessions/${sessionId}/turns`, { method: 'POST', body: JSON.stringify({ messages: [{ role: 'user', content }], stream: 'delta', model: PRICED, ...extra }) })),
    sessions: async (query = '') => (await json(`/sessions${query}`)).body,
    usage: async (query = '') => (await json(`/usage${query}`)).body,
    socket: (sessionId: string) => openSocket(sessionId, { authorization: `Bearer ${token}` }),
  };
}

/** Waits until the user's usage shows `calls` model calls today (titles are made after their turn). */
export async function usageSettles(user: TestUser, calls: number): Promise<any> {
  return vi.waitFor(
    async () => {
      const usage = await user.usage();
      expect(usage.total.calls).toBe(calls);
      return usage;
    },
    { timeout: 8000, interval: 50 },
  );
}
