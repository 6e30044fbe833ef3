/**
 * A stateful property test: random interleavings of turns, tool results, permissions, cancels,
 * retries with keys, deletes, restarts of every object and another user's requests on the same
 * session id, checked against a model of the session state machine. Never a 5xx, never another
 * user's data, and the history's invariants always hold.
 */
import { abortAllDurableObjects } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import fc from 'fast-check';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { callWorker, checkHistoryInvariants, newSessionId } from '../helpers/api';

const SECRET = 'model-test-secret-0123456789abcdef';
const USERS = ['ann', 'bob'] as const;
type User = (typeof USERS)[number];

type Pending = { toolCallId: string; awaiting: 'client' | 'permission' };
type UserState = { exists: boolean; pending: Pending[]; lastTurnId?: string; keys: Map<string, { body: string; answer: unknown }> };
type Model = { sessionId: string; users: Record<User, UserState> };
type Real = { tokens: Record<User, string> };

async function call(real: Real, user: User, path: string, init: { method?: string; body?: unknown; key?: string } = {}) {
  const headers: Record<string, string> = { authorization: `Bearer ${real.tokens[user]}` };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (init.key) headers['idempotency-key'] = init.key;
  const request = new Request(`https://agents.example.com${path}`, {
    method: init.method ?? 'GET',
    headers,
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  const response = await callWorker(request, { ...env, AUTH_SECRET: SECRET, RATE_LIMIT_PER_MINUTE: '0' });
  expect(response.status).toBeLessThan(500);
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : undefined };
}

/** What the demo model leaves pending for a prompt (see docs/demo-model.md). */
function expectedPending(prompt: string, withTools: boolean): Pending['awaiting'][] {
  return prompt.split(';').flatMap((clause): Pending['awaiting'][] => {
    if (/^\s*remember/.test(clause)) return ['permission'];
    if (/^\s*call get_weather/.test(clause) && withTools) return ['client'];
    return [];
  });
}

const PROMPTS = ['hello', 'calculate 2*3', 'remember {user} likes tea', 'call get_weather {}', 'calculate 1+1; remember {user} x; call get_weather {}'];

class UserTurn implements fc.AsyncCommand<Model, Real> {
  constructor(readonly user: User, readonly prompt: string, readonly withTools: boolean, readonly key: string | undefined) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const state = model.users[this.user];
    const text = this.prompt.replaceAll('{user}', this.user);
    const body = { messages: [{ role: 'user', content: text }], ...(this.withTools ? { tools: [{ name: 'get_weather' }] } : {}) };
    const prior = this.key ? state.keys.get(this.key) : undefined;
    const result = await call(real, this.user, `/sessions/${model.sessionId}/turns`, { method: 'POST', body, key: this.key });
    if (prior) {
      if (prior.body === JSON.stringify(body)) expect(result).toEqual({ status: 200, json: prior.answer });
      else expect(result.status).toBe(422);
      return;
    }
    if (state.pending.length > 0) {
      expect(result.status).toBe(409);
      expect(result.json.error.code).toBe('pending_tool_calls');
      return;
    }
    expect(result.status).toBe(200);
    state.exists = true;
    state.lastTurnId = result.json.turnId;
    if (this.key) state.keys.set(this.key, { body: JSON.stringify(body), answer: result.json });
    const calls = result.json.messages.flatMap((m: any) => (Array.isArray(m.content) ? m.content.filter((b: any) => b.type === 'tool_use') : []));
    const waiting = calls.filter((c: any) => c.name === 'memory_save' || c.name === 'get_weather');
    state.pending = waiting.map((c: any) => ({ toolCallId: c.toolCallId, awaiting: c.name === 'get_weather' ? 'client' : 'permission' }));
    expect(state.pending.map((p) => p.awaiting)).toEqual(expectedPending(text, this.withTools));
    expect(result.json.stopReason).toBe(state.pending.length > 0 ? 'tool_use' : 'end_turn');
  }
  toString = () => `UserTurn(${this.user}, ${this.prompt}, tools=${this.withTools}, key=${this.key})`;
}

class AnswerAll implements fc.AsyncCommand<Model, Real> {
  constructor(readonly user: User, readonly grant: boolean) {}
  check = (model: Readonly<Model>) => model.users[this.user].pending.length > 0;
  async run(model: Model, real: Real) {
    const state = model.users[this.user];
    const messages = state.pending.map((p) =>
      p.awaiting === 'client' ? { role: 'tool', toolCallId: p.toolCallId, content: 'sunny' } : { role: 'tool_permission', toolCallId: p.toolCallId, granted: this.grant },
    );
    const result = await call(real, this.user, `/sessions/${model.sessionId}/turns`, { method: 'POST', body: { messages } });
    expect(result.status).toBe(200);
    expect(result.json.stopReason).toBe('end_turn');
    state.pending = [];
    state.lastTurnId = result.json.turnId;
  }
  toString = () => `AnswerAll(${this.user}, grant=${this.grant})`;
}

class AnswerBadly implements fc.AsyncCommand<Model, Real> {
  constructor(readonly user: User, readonly kind: 'unknown' | 'partial' | 'wrong-kind') {}
  check = (model: Readonly<Model>) => this.kind === 'unknown' || model.users[this.user].pending.length > (this.kind === 'partial' ? 1 : 0);
  async run(model: Model, real: Real) {
    const pending = model.users[this.user].pending;
    const first = pending[0];
    const messages =
      this.kind === 'unknown'
        ? [{ role: 'tool', toolCallId: 'call_unknown', content: 'x' }]
        : this.kind === 'partial'
          ? [first!.awaiting === 'client' ? { role: 'tool', toolCallId: first!.toolCallId, content: 'x' } : { role: 'tool_permission', toolCallId: first!.toolCallId, granted: true }]
          : [first!.awaiting === 'client' ? { role: 'tool_permission', toolCallId: first!.toolCallId, granted: true } : { role: 'tool', toolCallId: first!.toolCallId, content: 'x' }];
    const result = await call(real, this.user, `/sessions/${model.sessionId}/turns`, { method: 'POST', body: { messages } });
    expect(result.status).toBe(this.kind === 'partial' ? 409 : 400);
  }
  toString = () => `AnswerBadly(${this.user}, ${this.kind})`;
}

class CancelLast implements fc.AsyncCommand<Model, Real> {
  constructor(readonly user: User) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const state = model.users[this.user];
    const turnId = state.lastTurnId ?? 'turn_000000000000000000000000';
    const result = await call(real, this.user, `/sessions/${model.sessionId}/turns/${turnId}/cancel`, { method: 'POST' });
    expect(result.status).toBe(state.exists && state.lastTurnId ? 409 : 404);
  }
  toString = () => `CancelLast(${this.user})`;
}

class Delete implements fc.AsyncCommand<Model, Real> {
  constructor(readonly user: User) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const state = model.users[this.user];
    const result = await call(real, this.user, `/sessions/${model.sessionId}`, { method: 'DELETE' });
    expect(result.status).toBe(state.exists ? 204 : 404);
    model.users[this.user] = { exists: false, pending: [], keys: new Map() };
  }
  toString = () => `Delete(${this.user})`;
}

/**
 * Every object restarts (as after an eviction or a deploy): what the session keeps in memory (its
 * `meta` rows, its table names, its parsed history, its adapters' conversions) is gone, and must be
 * read again from storage as it was.
 */
class Evict implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run() {
    await abortAllDurableObjects();
  }
  toString = () => 'Evict';
}

/** After every command: each user sees exactly their own session, in a sound state. */
async function checkInvariants(model: Model, real: Real) {
  for (const user of USERS) {
    const state = model.users[user];
    const summary = await call(real, user, `/sessions/${model.sessionId}`);
    if (!state.exists) {
      expect(summary.status).toBe(404);
      continue;
    }
    expect(summary.status).toBe(200);
    expect(summary.json.running).toBe(false);
    expect(summary.json.pendingToolCalls.map((p: any) => p.toolCallId)).toEqual(state.pending.map((p) => p.toolCallId));
    const messages = (await call(real, user, `/sessions/${model.sessionId}/messages?limit=500`)).json.messages;
    checkHistoryInvariants(messages, state.pending.map((p) => p.toolCallId));
    const other = USERS.find((u) => u !== user)!;
    expect(JSON.stringify(messages)).not.toContain(`remember ${other}`);
  }
}

const user = fc.constantFrom(...USERS);
const commands = [
  fc.tuple(user, fc.constantFrom(...PROMPTS), fc.boolean(), fc.option(fc.constantFrom('k1', 'k2'), { nil: undefined })).map(
    ([u, p, t, k]) => new UserTurn(u, p, t, k),
  ),
  fc.tuple(user, fc.boolean()).map(([u, g]) => new AnswerAll(u, g)),
  fc.tuple(user, fc.constantFrom('unknown' as const, 'partial' as const, 'wrong-kind' as const)).map(([u, k]) => new AnswerBadly(u, k)),
  user.map((u) => new CancelLast(u)),
  user.map((u) => new Delete(u)),
  fc.constant(new Evict()),
];

describe('the session state machine', () => {
  it('matches its model under random interleavings of two users on one session id', async () => {
    const tokens = Object.fromEntries(
      await Promise.all(
        USERS.map(async (u) => [u, await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject(u).setExpirationTime('10m').sign(new TextEncoder().encode(SECRET))]),
      ),
    ) as Record<User, string>;
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 14, size: 'max' }), async (cmds) => {
        const fresh = (): UserState => ({ exists: false, pending: [], keys: new Map() });
        const model: Model = { sessionId: newSessionId('model'), users: { ann: fresh(), bob: fresh() } };
        const real: Real = { tokens };
        await fc.asyncModelRun(() => ({ model, real }), [...cmds].flatMap((cmd) => [cmd, new Check()]) as any);
      }),
      { numRuns: 40 },
    );
    // Forty runs of up to fourteen commands, each checked: about 22 s alone on a 2-core machine on a
    // slow day, past the default 20 s. The limit is a guard against a hang, not a measure of speed.
  }, 90_000);
});

class Check implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  run = checkInvariants;
  toString = () => 'Check';
}
