/**
 * Branches (docs/branches.md): edit, regenerate, activate and fork through the Worker, against a
 * stand-in upstream that replays a recorded answer and records what the model received: the model
 * sees exactly the active branch, in order, its tool exchanges whole; nothing is deleted; refusals
 * change nothing.
 */
import { describe, expect, it } from 'vitest';
import { fetchWorker, history, jsonTurn, newSessionId, postTurn, session, storedMessages, turn, user } from '../helpers/api';
import { running } from '../helpers/busy';
import { sentWith } from '../helpers/upstream-log';

const REPLAY = 'openai:replay/openai/gpt-4o-text-usage';

/** What the model was sent on its last call for the session `id` (system prompt left out), as role and text. */
async function lastSent(id: string): Promise<string[]> {
  const sent = (await sentWith(id)).at(-1);
  return sent.messages.slice(1).map((message: any) => `${message.role}:${message.content}`);
}

const errorCode = async (response: Response): Promise<string> => ((await response.json()) as { error: { code: string } }).error.code;
const branches = async (id: string) => (await (await fetchWorker(`/sessions/${id}/branches`)).json()) as { branches: any[] };
const activate = (id: string, leafId: string) => fetchWorker(`/sessions/${id}/branches/${leafId}/activate`, { method: 'POST' });
const fork = (id: string, body?: unknown) =>
  fetchWorker(`/sessions/${id}/fork`, body === undefined ? { method: 'POST' } : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** A session of three exchanges with the recorded model; the messages, with their ids. */
async function threeExchanges(label: string): Promise<{ id: string; stored: any[] }> {
  const id = newSessionId(label);
  for (const text of ['one', 'two', 'three']) expect((await turn(id, { messages: [user(`${text} ${id}`)], model: REPLAY })).status).toBe(200);
  return { id, stored: await storedMessages(id) };
}

/** What a refusal must leave as it was: the branch, every branch, and the session's summary. */
async function snapshot(id: string) {
  const { body } = await session(id);
  return { messages: await storedMessages(id), branches: await branches(id), messageCount: body.messageCount, pending: body.pendingToolCalls };
}

describe('every stored message has an id and its parent', () => {
  it('in GET .../messages and in a stream "none" answer, one path from the first message', async () => {
    const id = newSessionId('ids');
    const body = await jsonTurn(id, { messages: [user('calculate 6*7')] });
    const stored = await storedMessages(id);
    expect(stored.map((message) => [message.id, message.parentId])).toEqual([
      ['msg_1', undefined],
      ['msg_2', 'msg_1'],
      ['msg_3', 'msg_2'],
      ['msg_4', 'msg_3'],
    ]);
    // The answer names what it added, as the history does.
    expect(body.messages).toEqual(stored.slice(1));
    expect(stored.every((message) => message.siblingIds === undefined)).toBe(true);
  });
});

describe('edit: parentId and a new message', () => {
  it('continues from the named message on a new branch the model sees alone; both branches stay', async () => {
    const { id, stored } = await threeExchanges('edit');
    const [u1, a1, u2] = stored;
    const edited = await jsonTurn(id, { messages: [user(`two, edited ${id}`)], parentId: a1.id, model: REPLAY });
    expect(await lastSent(id)).toEqual([`user:one ${id}`, 'assistant:Olá!', `user:two, edited ${id}`]);

    const now = await storedMessages(id);
    expect(now.map((message) => message.content)).toEqual([`one ${id}`, 'Olá!', `two, edited ${id}`, 'Olá!']);
    expect(now[2].parentId).toBe(a1.id);
    expect(now[2].siblingIds).toEqual([u2.id, now[2].id]);
    expect(edited.messages).toEqual([now[3]]);
    // Nothing was deleted: the first branch reads back whole, its user message with the same siblings.
    const old = await storedMessages(id, stored.at(-1).id);
    expect(old).toEqual(stored.map((message) => (message.id === u2.id ? { ...message, siblingIds: [u2.id, now[2].id] } : message)));
    expect((await branches(id)).branches).toEqual([
      { leafId: stored.at(-1).id, active: false, messageCount: 6, updatedAt: expect.any(String), },
      { leafId: now[3].id, active: true, messageCount: 4, updatedAt: expect.any(String), forkPointId: a1.id },
    ]);
    expect((await session(id)).body.messageCount).toBe(4);
    expect(u1.parentId).toBeUndefined();
  });

  it('edits the first message with parentId null: a second first message', async () => {
    const { id, stored } = await threeExchanges('edit-first');
    await jsonTurn(id, { messages: [user(`zero ${id}`)], parentId: null, model: REPLAY });
    expect(await lastSent(id)).toEqual([`user:zero ${id}`]);
    const now = await storedMessages(id);
    expect(now.map((message) => message.content)).toEqual([`zero ${id}`, 'Olá!']);
    expect(now[0].parentId).toBeUndefined();
    expect(now[0].siblingIds).toEqual([stored[0].id, now[0].id]);
    expect((await branches(id)).branches.map((branch: any) => [branch.active, branch.messageCount, branch.forkPointId])).toEqual([
      [false, 6, undefined],
      [true, 2, undefined],
    ]);
  });
});

describe('regenerate: parentId and no message', () => {
  it('answers again from a user message; the answers are siblings', async () => {
    const { id, stored } = await threeExchanges('regen');
    const u3 = stored[4];
    const again = await jsonTurn(id, { messages: [], parentId: u3.id, model: REPLAY });
    expect(await lastSent(id)).toEqual([`user:one ${id}`, 'assistant:Olá!', `user:two ${id}`, 'assistant:Olá!', `user:three ${id}`]);
    const answer = again.messages[0];
    expect(answer).toMatchObject({ role: 'assistant', content: 'Olá!', parentId: u3.id, siblingIds: [stored[5].id, answer.id] });
    expect(await history(id)).toHaveLength(6);
  });

  it('answers again from the tool result that completes a call', async () => {
    const id = newSessionId('regen-tool');
    await jsonTurn(id, { messages: [user('calculate 6*7')] });
    const stored = await storedMessages(id);
    const again = await jsonTurn(id, { messages: [], parentId: stored[2].id });
    expect(again.stopReason).toBe('end_turn');
    expect(again.messages[0]).toMatchObject({ role: 'assistant', parentId: stored[2].id, siblingIds: [stored[3].id, again.messages[0].id] });
  });
});

describe('activate', () => {
  it('switches the active branch; the next turn continues there and the model sees it alone', async () => {
    const { id, stored } = await threeExchanges('activate');
    await jsonTurn(id, { messages: [user(`two, edited ${id}`)], parentId: stored[1].id, model: REPLAY });
    const response = await activate(id, stored[5].id);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ leafId: stored[5].id, active: true, messageCount: 6, updatedAt: expect.any(String) });
    expect(await storedMessages(id)).toEqual(stored.map((message) => (message.id === stored[2].id ? { ...message, siblingIds: expect.any(Array) } : message)));
    await jsonTurn(id, { messages: [user(`four ${id}`)], model: REPLAY });
    expect(await lastSent(id)).toEqual([`user:one ${id}`, 'assistant:Olá!', `user:two ${id}`, 'assistant:Olá!', `user:three ${id}`, 'assistant:Olá!', `user:four ${id}`]);
  });

  it('refuses a message that is not a leaf (404), an unknown id (404), and a switch while a turn runs (409), changing nothing', async () => {
    const { id, stored } = await threeExchanges('activate-bad');
    const before = await snapshot(id);
    for (const leaf of [stored[2].id, 'msg_999', 'nope']) {
      const response = await activate(id, leaf);
      expect(response.status).toBe(404);
      expect((await errorCode(response))).toBe('branch_not_found');
    }
    expect(await snapshot(id)).toEqual(before);

    const busy = newSessionId('activate-busy');
    const { rest } = await running(busy);
    const response = await activate(busy, 'msg_1');
    expect(response.status).toBe(409);
    expect((await errorCode(response))).toBe('session_busy');
    await rest;
  });

  it('answers 404 for a session that does not exist', async () => {
    expect((await activate(newSessionId('none'), 'msg_1')).status).toBe(404);
    expect((await fetchWorker(`/sessions/${newSessionId('none')}/branches`)).status).toBe(404);
  });
});

describe('parentId that cannot be continued from is a 400 invalid_parent, and changes nothing', () => {
  it.each([
    ['an assistant message with tool calls', (stored: any[]) => ({ messages: [user('x')], parentId: stored[1].id })],
    ['an unknown id', () => ({ messages: [user('x')], parentId: 'msg_999' })],
    ['a regenerate from an answer of the model', (stored: any[]) => ({ messages: [], parentId: stored[3].id })],
    ['a regenerate from the start', () => ({ messages: [], parentId: null })],
    ['a system message', (stored: any[]) => ({ messages: [user('x')], parentId: stored.find((m) => m.role === 'system').id })],
  ])('%s', async (_label, body) => {
    const id = newSessionId('bad-parent');
    await jsonTurn(id, { messages: [user('calculate 6*7')] });
    await jsonTurn(id, { messages: [{ role: 'system', content: 'Be brief.' }, user('hello')] });
    const before = await snapshot(id);
    const response = await postTurn(id, body(before.messages));
    expect(response.status).toBe(400);
    expect((await errorCode(response))).toBe('invalid_parent');
    expect(await snapshot(id)).toEqual(before);
  });

  it.each([
    ['a malformed id', { messages: [user('x')], parentId: 'm1' }],
    ['no message and no parentId', { messages: [] }],
    ['a steered message with a parentId', { messages: [user('x')], parentId: 'msg_1', ifBusy: 'steer' }],
  ])('%s is a 400 invalid_request', async (_label, body) => {
    const id = newSessionId('bad-request');
    await jsonTurn(id, { messages: [user('hello')] });
    const before = await snapshot(id);
    const response = await postTurn(id, body);
    expect(response.status).toBe(400);
    expect((await errorCode(response))).toBe('invalid_request');
    expect(await snapshot(id)).toEqual(before);
  });

  it('refuses a tool result whose exchange is not complete', async () => {
    const id = newSessionId('partial');
    await jsonTurn(id, { messages: [user('calculate 1+1; remember y')] });
    const stored = await storedMessages(id);
    // The calculator's result is stored; the permission for memory_save is still owed.
    const partial = stored.find((message) => message.role === 'tool');
    const before = await snapshot(id);
    const response = await postTurn(id, { messages: [user('x')], parentId: partial.id });
    expect(response.status).toBe(400);
    expect((await errorCode(response))).toBe('invalid_parent');
    expect(await snapshot(id)).toEqual(before);
  });
});

describe('pending tool calls belong to their branch', () => {
  it('a branching turn does not owe them; they are owed again when their branch is active again', async () => {
    const id = newSessionId('pending');
    await jsonTurn(id, { messages: [user('hello')] });
    const waiting = await jsonTurn(id, { messages: [user('remember milk')] });
    expect(waiting.stopReason).toBe('tool_use');
    const owed = (await session(id)).body.pendingToolCalls;
    expect(owed).toHaveLength(1);
    const stored = await storedMessages(id);

    // Without parentId the calls are owed; with one, the turn leaves them on their branch.
    expect((await postTurn(id, { messages: [user('something else')] })).status).toBe(409);
    const branched = await jsonTurn(id, { messages: [user('something else')], parentId: stored[1].id });
    expect(branched.stopReason).toBe('end_turn');
    expect((await session(id)).body.pendingToolCalls).toEqual([]);

    expect((await activate(id, stored.at(-1).id)).status).toBe(200);
    expect((await session(id)).body.pendingToolCalls).toEqual(owed);
    const answered = await jsonTurn(id, { messages: [{ role: 'tool_permission', toolCallId: owed[0].toolCallId, granted: true }] });
    expect(answered.stopReason).toBe('end_turn');
    expect((await history(id)).map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'tool', 'assistant']);
  });
});

describe('fork', () => {
  it('makes a new session of the same user with a copy of the active branch, its title marked, its history its own', async () => {
    const { id, stored } = await threeExchanges('fork');
    // The title is made in a side call after the first exchange: the fork is taken once it is there.
    await expect.poll(async () => (await session(id)).body.title, { timeout: 10_000 }).toBeDefined();
    const response = await fork(id);
    expect(response.status).toBe(201);
    const { sessionId } = (await response.json()) as { sessionId: string };
    expect(sessionId).toMatch(/^ses_[0-9a-f]{24}$/);
    expect(await history(sessionId)).toEqual(await history(id));
    const forked = (await session(sessionId)).body;
    expect(forked).toMatchObject({ messageCount: 6, forkedFrom: { sessionId: id, messageId: stored[5].id } });
    const source = (await session(id)).body;
    expect(forked.title).toBe(`${source.title} (fork)`);

    await jsonTurn(sessionId, { messages: [user(`four ${id}`)], model: REPLAY });
    expect(await lastSent(id)).toEqual([`user:one ${id}`, 'assistant:Olá!', `user:two ${id}`, 'assistant:Olá!', `user:three ${id}`, 'assistant:Olá!', `user:four ${id}`]);
    expect(await history(sessionId)).toHaveLength(8);
    expect(await history(id)).toHaveLength(6);
  });

  it('copies up to upTo, to the id asked for; the id taken is a 409; a bad upTo is a 400', async () => {
    const { id, stored } = await threeExchanges('fork-upto');
    const target = newSessionId('fork-target');
    const response = await fork(id, { sessionId: target, upTo: stored[2].id });
    expect(response.status).toBe(201);
    expect(await response.json()).toEqual({ sessionId: target });
    expect((await history(target)).map((message) => message.content)).toEqual([`one ${id}`, 'Olá!', `two ${id}`]);
    // A fork that ends at a user message is answered by its first turn: regenerate from there.
    const answered = await jsonTurn(target, { messages: [], parentId: 'msg_3', model: REPLAY });
    expect(answered.stopReason).toBe('end_turn');

    const before = await snapshot(target);
    const taken = await fork(id, { sessionId: target });
    expect(taken.status).toBe(409);
    expect((await errorCode(taken))).toBe('session_exists');
    expect(await snapshot(target)).toEqual(before);

    for (const [body, code] of [
      [{ upTo: 'msg_999' }, 'invalid_parent'],
      [{ upTo: 'nope' }, 'invalid_request'],
      [{ sessionId: 'a b' }, 'invalid_request'],
      [{ extra: true }, 'invalid_request'],
    ] as const) {
      const refused = await fork(id, body);
      expect(refused.status).toBe(400);
      expect((await errorCode(refused))).toBe(code);
    }
    expect((await fork(newSessionId('nothing'))).status).toBe(404);
  });

  it('leaves out a trailing exchange still owed, and copies the rules', async () => {
    const id = newSessionId('fork-owed');
    await jsonTurn(id, { messages: [user('hello')] });
    const waiting = await jsonTurn(id, { messages: [user('remember milk')] });
    const callId = waiting.messages[0].content.find((block: any) => block.type === 'tool_use').toolCallId;
    const deny = { tool_name: 'calculator', rule_content: '*', behavior: 'deny', source: 'session' };
    await jsonTurn(id, { messages: [{ role: 'tool_permission', toolCallId: callId, granted: true, rule: deny }] });
    expect((await jsonTurn(id, { messages: [user('remember eggs')] })).stopReason).toBe('tool_use');
    const target = newSessionId('fork-owed-target');
    expect((await fork(id, { sessionId: target })).status).toBe(201);
    expect((await history(target)).map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'tool', 'assistant', 'user']);
    expect((await session(target)).body.pendingToolCalls).toEqual([]);
    // The deny rule came along: the fork refuses the calculator as the source does.
    const denied = await jsonTurn(target, { messages: [user('calculate 2*3')] });
    expect(denied.messages.find((message: any) => message.role === 'tool')).toMatchObject({ isError: true });
  });
});

describe('every door reads the active branch', () => {
  it('a Harness run after an edit and a switch back sees the branch made active, and only it', async () => {
    const { id, stored } = await threeExchanges('door');
    await jsonTurn(id, { messages: [user(`two, edited ${id}`)], parentId: stored[1].id, model: REPLAY });
    expect((await activate(id, stored[5].id)).status).toBe(200);
    const response = await fetchWorker('/harness/chat', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sessionId: id, userId: 'local', input: `four ${id}`, chatModel: { name: REPLAY } }),
    });
    expect(response.status).toBe(200);
    await response.text();
    expect(await lastSent(id)).toEqual([`user:one ${id}`, 'assistant:Olá!', `user:two ${id}`, 'assistant:Olá!', `user:three ${id}`, 'assistant:Olá!', `user:four ${id}`]);
    expect((await history(id)).map((message) => message.content).at(-2)).toBe(`four ${id}`);
  });
});
