/**
 * The chat socket (docs/chat-socket.md) against the real Worker and Durable Object in workerd: completions with
 * text, tools of every kind, stop, titles; several sockets on one session; frames that are refused.
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { LOCAL_USER } from '../../src/http/auth';
import { sessionObjectName } from '../../src/http/session-stub';
import { describe, expect, it } from 'vitest';
import { checkHistoryInvariants, fetchWorker, history, jsonTurn, newSessionId, session, user, waitIdle } from '../helpers/api';
import { abortedWith, titleCalls } from '../helpers/upstream-log';
import { complete, openSocket, types, type Frame, type TestSocket } from '../helpers/socket';

const joined = (frames: Frame[], type: string, field: string) =>
  frames
    .filter((frame) => frame.type === type)
    .map((frame) => frame[field])
    .join('');

/** What the session holds: its view, its history and what its sockets staged. */
async function snapshot(sessionId: string) {
  const view = await session(sessionId);
  const staged = await runInDurableObject(env.SESSIONS.getByName(sessionObjectName(LOCAL_USER, sessionId)), (_object, state) => {
    const exists = state.storage.sql.exec(`SELECT 1 FROM sqlite_master WHERE name = 'socket_staged'`).toArray().length > 0;
    return exists ? state.storage.sql.exec(`SELECT body FROM socket_staged ORDER BY seq`).toArray() : [];
  });
  return { view, messages: await history(sessionId), staged };
}

async function pendingCall(socket: TestSocket, text: string, request: Record<string, unknown> = {}) {
  const frames = await complete(socket, text, request);
  expect(frames.at(-1)).toEqual({ type: 'completion_done', finish_reason: 'tool_calls' });
  return frames.find((frame) => frame.type === 'tool_call_chunk' && frame.id !== null)!;
}

describe('completions', () => {
  it('a plain completion: init, chunks, sentences that join to the text, echo, the whole message, done', async () => {
    const id = newSessionId();
    const socket = await openSocket(id);
    expect(socket.response.status).toBe(101);
    const frames = await complete(socket, 'Hello there. Is 3.14 close to pi? See e.g. https://example.com/pi.html for more.');

    expect(frames[0]).toEqual({ type: 'completion_init', conversation_id: id, user_character_config_id: null });
    const text = joined(frames, 'llm_text_chunk', 'chunk');
    expect(text).toContain('Hello there.');
    const sentences = frames.filter((frame) => frame.type === 'llm_text_sentence');
    expect(sentences.map((frame) => frame.index)).toEqual(sentences.map((_, index) => index));
    expect(sentences.map((frame) => frame.sentence).join('')).toBe(text);
    expect(sentences.some((frame) => frame.sentence.includes('3.14 close'))).toBe(true);
    expect(sentences.some((frame) => frame.sentence.includes('e.g. https://example.com/pi.html for more'))).toBe(true);
    expect(frames.filter((frame) => frame.type === 'text_echo')).toEqual([{ type: 'text_echo', text }]);
    expect(frames.find((frame) => frame.type === 'assistant_message_complete')).toEqual({
      type: 'assistant_message_complete',
      content: text,
      tool_calls: [],
      thinking: null,
      finish_reason: 'stop',
      source_message_id: null,
    });
    expect(frames.at(-1)).toEqual({ type: 'completion_done', finish_reason: 'stop' });
    // Thinking is sent only in reasoning mode.
    expect(types(frames).some((type) => type.startsWith('llm_thinking'))).toBe(false);

    const stored = await history(id);
    expect(stored.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(stored[1].content.filter((block: any) => block.type === 'text').map((block: any) => block.text).join('')).toBe(text);
  });

  it('reasoning: thinking by chunk and by sentence, and in the whole message', async () => {
    const socket = await openSocket(newSessionId());
    const frames = await complete(socket, 'Tell me something.', { reasoning: true });
    const thinking = joined(frames, 'llm_thinking_chunk', 'chunk');
    expect(thinking.length).toBeGreaterThan(0);
    expect(joined(frames, 'llm_thinking_sentence', 'sentence')).toBe(thinking);
    expect(frames.find((frame) => frame.type === 'assistant_message_complete')!.thinking).toBe(thinking);
  });

  it('a trusted tool: the first chunk names the call, the rest carry its arguments; then its result', async () => {
    const id = newSessionId();
    const socket = await openSocket(id);
    const frames = await complete(socket, 'calculate (2+3)*4');
    const chunks = frames.filter((frame) => frame.type === 'tool_call_chunk');
    expect(chunks[0]).toEqual({
      type: 'tool_call_chunk',
      index: 0,
      id: expect.stringMatching(/./),
      function: { name: 'calculator', arguments: '' },
      show_name: true,
      show_arguments: true,
      show_result: true,
      confirmation_state: 'none',
    });
    for (const chunk of chunks.slice(1)) {
      expect(chunk).toMatchObject({ index: 0, id: null, function: { name: null }, confirmation_state: 'none' });
    }
    const args = chunks.map((chunk) => chunk.function.arguments).join('');
    expect(JSON.parse(args)).toEqual({ expression: '(2+3)*4' });

    const asked = frames.find((frame) => frame.type === 'assistant_message_complete')!;
    expect(asked.finish_reason).toBe('tool_calls');
    expect(asked.tool_calls).toEqual([
      {
        id: chunks[0]!.id,
        type: 'function',
        function: { name: 'calculator', arguments: args },
        show_name: true,
        show_arguments: true,
        show_result: true,
        confirmation_state: 'none',
      },
    ]);
    expect(frames.find((frame) => frame.type === 'tool_call')).toEqual({ type: 'tool_call', id: chunks[0]!.id, result: '20', show_result: true });
    expect(frames.at(-1)).toEqual({ type: 'completion_done', finish_reason: 'stop' });
    checkHistoryInvariants(await history(id));
  });

  it('visibility flags per tool, from TOOL_VISIBILITY', async () => {
    const socket = await openSocket(newSessionId());
    const frames = await complete(socket, 'list notes');
    const chunk = frames.find((frame) => frame.type === 'tool_call_chunk')!;
    expect(chunk).toMatchObject({ function: { name: 'memory_list' }, show_name: true, show_arguments: false, show_result: false });
    expect(frames.find((frame) => frame.type === 'tool_call')).toMatchObject({ show_result: false });
  });

  it('an untrusted tool waits (pending); approved, the completion goes on by itself', async () => {
    const id = newSessionId();
    const socket = await openSocket(id);
    const call = await pendingCall(socket, 'remember buy milk');
    expect(call).toMatchObject({ function: { name: 'memory_save' }, confirmation_state: 'pending' });
    expect((await session(id)).body.pendingToolCalls).toEqual([expect.objectContaining({ toolCallId: call.id, awaiting: 'permission' })]);

    socket.send({ type: 'tool_confirmation_response', tool_call_id: call.id, action: 'approve', request_id: 'r1' });
    expect(await socket.until('tool_confirmation_processed')).toEqual([{ type: 'tool_confirmation_processed', tool_call_id: call.id, action: 'approve' }]);
    const resumed = await socket.until('completion_done');
    expect(resumed[0]).toMatchObject({ type: 'completion_init' });
    expect(resumed.find((frame) => frame.type === 'tool_call')).toMatchObject({ id: call.id, result: expect.stringContaining('Saved note') });
    expect(resumed.at(-1)).toEqual({ type: 'completion_done', finish_reason: 'stop' });

    const listed = await complete(socket, 'list notes');
    expect(JSON.stringify(listed)).toContain('buy milk');
    checkHistoryInvariants(await history(id));
  });

  it('an untrusted tool denied with a reason: the model hears the reason, nothing runs', async () => {
    const id = newSessionId();
    const socket = await openSocket(id);
    const call = await pendingCall(socket, 'remember my password is hunter2');
    socket.send({ type: 'tool_confirmation_response', tool_call_id: call.id, action: 'deny', reason: 'not this one' });
    await socket.until('tool_confirmation_processed');
    const resumed = await socket.until('completion_done');
    expect(resumed.find((frame) => frame.type === 'tool_call')).toMatchObject({ id: call.id, result: expect.stringContaining('not this one') });
    const listed = await complete(socket, 'list notes');
    expect(JSON.stringify(listed)).not.toContain('hunter2');
  });

  it('two pending calls: the completion resumes only when both are answered', async () => {
    const id = newSessionId();
    const socket = await openSocket(id);
    const asked = await complete(socket, 'remember one; remember two');
    const calls = asked.find((frame) => frame.type === 'assistant_message_complete')!.tool_calls.map((call: any) => call.id);
    expect(calls).toHaveLength(2);

    socket.send({ type: 'tool_confirmation_response', tool_call_id: calls[0], action: 'approve' });
    await socket.until('tool_confirmation_processed');
    // Asking now is refused: one call is still owed.
    socket.send({ type: 'request_completion', request_id: 'early' });
    expect((await socket.until('error'))[0]).toMatchObject({ code: 'pending_tool_calls', request_id: 'early' });
    expect((await session(id)).body.running).toBe(false);

    socket.send({ type: 'tool_confirmation_response', tool_call_id: calls[1], action: 'deny' });
    await socket.until('tool_confirmation_processed');
    const resumed = await socket.until('completion_done');
    // A denial's result comes at once, an approved call's when it has run: both are sent.
    expect(resumed.filter((frame) => frame.type === 'tool_call').map((frame) => frame.id).sort()).toEqual([...calls].sort());
    checkHistoryInvariants(await history(id));
  });

  it('a client tool: awaiting_input, answered with append_message {role: "tool"}, then the completion goes on', async () => {
    const id = newSessionId();
    const socket = await openSocket(id);
    const tools = [{ name: 'get_weather', description: 'The weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } }];
    const call = await pendingCall(socket, 'call get_weather {"city":"Paris"}', { tools });
    expect(call).toMatchObject({ function: { name: 'get_weather' }, confirmation_state: 'awaiting_input' });

    socket.send({ type: 'append_message', role: 'tool', tool_call_id: call.id, content: '18°C and sunny' });
    await socket.until('message_appended');
    const resumed = await socket.until('completion_done');
    expect(resumed.find((frame) => frame.type === 'tool_call')).toEqual({ type: 'tool_call', id: call.id, result: '18°C and sunny', show_result: true });
    expect(joined(resumed, 'llm_text_chunk', 'chunk')).toContain('18°C and sunny');
    expect(resumed.at(-1)).toEqual({ type: 'completion_done', finish_reason: 'stop' });
    // The client's tools stay offered to the completions that do not name theirs.
    const again = await pendingCall(socket, 'call get_weather {"city":"Oslo"}');
    expect(again.confirmation_state).toBe('awaiting_input');
  });

  it('stop_completion mid-stream: the upstream call ends, the partial text comes back and is stored', async () => {
    const id = newSessionId();
    const socket = await openSocket(id);
    socket.send({ type: 'append_message', role: 'user', content: 'stop me please' });
    await socket.until('message_appended');
    socket.send({ type: 'request_completion', model: 'openai:script/slow', request_id: 'slow-1' });
    const before = await socket.until('llm_text_chunk');
    expect(before[0]).toMatchObject({ type: 'completion_init' });
    socket.send({ type: 'stop_completion' });
    const after = await socket.until('completion_done');

    const shown = joined([...before, ...after], 'llm_text_chunk', 'chunk');
    const stop = after.find((frame) => frame.type === 'stop_completion')!;
    expect(stop).toEqual({ type: 'stop_completion', partial_text: shown });
    expect(shown.length).toBeGreaterThan(0);
    expect(after.at(-1)).toEqual({ type: 'completion_done', finish_reason: 'stop' });
    expect(types(after)).not.toContain('assistant_message_complete');
    expect(types(after)).not.toContain('error');

    const stored = await history(id);
    expect(stored.at(-1)).toMatchObject({ role: 'assistant' });
    expect(JSON.stringify(stored.at(-1).content)).toContain(JSON.stringify(shown).slice(1, -1));
    // The stand-in saw its stream closed early: the abort reached the upstream fetch.
    expect(await abortedWith('stop me please')).not.toHaveLength(0);
    expect((await session(id)).body.running).toBe(false);
  });

  it('a title after the first exchange, made by the model, sent once and kept with the session', async () => {
    const id = newSessionId();
    const socket = await openSocket(id);
    await complete(socket, 'Plan a trip to Kyoto in spring');
    const [title] = await socket.until('conversation_title_update');
    expect(title).toEqual({ type: 'conversation_title_update', conversation_id: id, title: 'Plan a trip to Kyoto in' });
    expect((await session(id)).body.title).toBe('Plan a trip to Kyoto in');

    await complete(socket, 'And in autumn?');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(socket.frames.filter((frame) => frame.type === 'conversation_title_update')).toHaveLength(1);
  });

  it('a title through an OpenAI-compatible model: its side call has no tools and its usage counts', async () => {
    const id = newSessionId();
    const done = await jsonTurn(id, { messages: [user('title marker 7f3a')], model: 'openai:replay/openai/gpt-4o-text-usage' });
    expect(done.stopReason).toBe('end_turn');
    await expect.poll(async () => (await session(id)).body.title, { timeout: 5000 }).toBe('Olá');
    const calls = await titleCalls('title marker 7f3a');
    expect(calls).toHaveLength(1);
    expect(calls[0].tools).toBeUndefined();
    const view = (await session(id)).body;
    // The recording replayed for the title reports the same usage as the turn's.
    expect(view.usage).toMatchObject({ inputTokens: 2 * done.usage.inputTokens, outputTokens: 2 * done.usage.outputTokens });
  });
});

describe('many sockets, one session', () => {
  it('two sockets both receive a completion, and a turn posted over HTTP too', async () => {
    const id = newSessionId();
    const [first, second] = [await openSocket(id), await openSocket(id)];
    const frames = await complete(first, 'calculate 6*7');
    const seen = await second.until('completion_done');
    expect(seen.filter((frame) => frame.type !== 'message_appended')).toEqual(frames.filter((frame) => frame.type !== 'message_appended'));

    await jsonTurn(id, { messages: [user('calculate 1+2')] });
    for (const socket of [first, second]) {
      const http = await socket.until('completion_done');
      expect(http.find((frame) => frame.type === 'tool_call')).toMatchObject({ result: '3' });
    }
  });

  it('a socket that drops reads what it missed from the history; the session is the one HTTP sees', async () => {
    const id = newSessionId();
    const leaving = await openSocket(id);
    await complete(leaving, 'calculate 1+1');
    leaving.ws.close(1000, 'bye');
    const staying = await openSocket(id);
    await complete(staying, 'calculate 2+2');

    const back = await openSocket(id);
    const missed = await history(id);
    expect(JSON.stringify(missed)).toContain('2+2');
    expect(missed.filter((message) => message.role === 'user')).toHaveLength(2);
    // And the session goes on from the reconnected socket.
    const frames = await complete(back, 'calculate 3+3');
    expect(frames.find((frame) => frame.type === 'tool_call')).toMatchObject({ result: '6' });
    expect((await history(id)).filter((message) => message.role === 'user')).toHaveLength(3);
  });

  it('answers staged on a socket for calls that a turn over HTTP answered are dropped, not replayed', async () => {
    const id = newSessionId();
    const socket = await openSocket(id);
    const asked = await complete(socket, 'remember one; remember two');
    const calls: string[] = asked.find((frame) => frame.type === 'assistant_message_complete')!.tool_calls.map((call: any) => call.id);
    socket.send({ type: 'tool_confirmation_response', tool_call_id: calls[0], action: 'approve' });
    await socket.until('tool_confirmation_processed');

    // Another client answers both over HTTP; its turn shows on the socket too.
    await jsonTurn(id, { messages: calls.map((toolCallId) => ({ role: 'tool_permission', toolCallId, granted: false })) });
    await socket.until('completion_done');
    const frames = await complete(socket, 'calculate 5*5');
    expect(frames.find((frame) => frame.type === 'tool_call')).toMatchObject({ result: '25' });
    checkHistoryInvariants(await history(id));
  });

  it('deleting the session tells its sockets (user_disconnect) and closes them', async () => {
    const id = newSessionId();
    const socket = await openSocket(id);
    await complete(socket, 'hello');
    await waitIdle(id);
    const response = await fetchWorker(`/sessions/${id}`, { method: 'DELETE' });
    expect(response.status).toBe(204);
    await socket.until('user_disconnect');
    expect(await socket.closed).toEqual({ code: 1000, reason: 'The session was deleted.' });
  });
});

describe('frames that are refused: an error frame, and nothing changes', () => {
  const bad: [string, unknown, string][] = [
    ['text that is not JSON', 'hello?', 'invalid_json'],
    ['JSON that is not an object', [1, 2], 'invalid_frame'],
    ['an unknown type', { type: 'dance', request_id: 'd1' }, 'unknown_type'],
    ['no type', { role: 'user', content: 'x' }, 'unknown_type'],
    ['append_message without content', { type: 'append_message', role: 'user' }, 'invalid_frame'],
    ['append_message with another role', { type: 'append_message', role: 'robot', content: 'x' }, 'invalid_frame'],
    ['append_message with empty blocks', { type: 'append_message', role: 'user', content: [] }, 'invalid_frame'],
    ['a tool answer without its call id', { type: 'append_message', role: 'tool', content: 'x' }, 'invalid_frame'],
    ['a tool answer for no pending call', { type: 'append_message', role: 'tool', tool_call_id: 'call_nope', content: 'x' }, 'unknown_tool_call'],
    ['a confirmation with another action', { type: 'tool_confirmation_response', tool_call_id: 'c', action: 'maybe' }, 'invalid_frame'],
    ['a confirmation for no pending call', { type: 'tool_confirmation_response', tool_call_id: 'call_nope', action: 'approve' }, 'unknown_tool_call'],
    ['a completion with nothing appended', { type: 'request_completion', request_id: 'r9' }, 'nothing_to_complete'],
    ['a completion on a model not offered', { type: 'request_completion', model: 'openai:gpt-nope' }, 'model_not_allowed'],
    ['a completion whose tool takes a server tool name', { type: 'request_completion', tools: [{ name: 'calculator' }] }, 'tool_name_conflict'],
    ['a completion with a bad tool schema', { type: 'request_completion', tools: [{ name: 't', parameters: { type: 'string' } }] }, 'invalid_frame'],
    ['stop with nothing running', { type: 'stop_completion' }, 'no_completion_running'],
  ];

  it.each(bad)('%s', async (_label, frame, code) => {
    const id = newSessionId();
    const socket = await openSocket(id);
    await complete(socket, 'calculate 1+1');
    await socket.until('conversation_title_update'); // the title's side call has ended
    const before = await snapshot(id);
    socket.sendRaw(typeof frame === 'string' ? frame : JSON.stringify(frame));
    const [error] = await socket.until('error');
    // A sentence ending in one period (a schema's own message inside it once ended in two).
    expect(error).toEqual({ type: 'error', code, message: expect.stringMatching(/[^.]\.$/), request_id: (frame as any)?.request_id ?? null });
    expect(await snapshot(id)).toEqual(before);
  });

  it('a request_id or type too long to be one is not echoed back whole', async () => {
    const socket = await openSocket(newSessionId());
    socket.sendRaw(JSON.stringify({ type: 'x'.repeat(100_000), request_id: 'r'.repeat(257) }));
    const [error] = await socket.until('error');
    expect(error).toEqual({ type: 'error', code: 'unknown_type', message: expect.stringMatching(/^Unknown frame type "x{64}"…\. Known: /), request_id: null });
    socket.sendRaw(JSON.stringify({ type: { big: 'x'.repeat(100_000) } }));
    expect((await socket.until('error')).at(-1)).toMatchObject({ code: 'unknown_type', message: expect.stringMatching(/^Unknown frame type \(an object\)\. Known: /) });
    socket.sendRaw(JSON.stringify({ type: 'append_message', role: 'user', content: 'hi', request_id: 'r'.repeat(257) }));
    expect((await socket.until('error')).at(-1)).toMatchObject({ code: 'invalid_frame', message: expect.stringContaining('request_id'), request_id: null });
  });

  it('a block of a kind the protocol does not take, told by its type', async () => {
    const socket = await openSocket(newSessionId());
    socket.sendRaw(JSON.stringify({ type: 'append_message', role: 'user', content: [{ type: 'video', url: 'https://example.com/a.mp4' }] }));
    expect((await socket.until('error'))[0]).toMatchObject({
      code: 'invalid_frame',
      message: 'The append_message frame is not valid (at content.0.type): Invalid input: expected one of "text", "image".',
    });
  });

  it('a binary frame', async () => {
    const id = newSessionId();
    const socket = await openSocket(id);
    socket.sendRaw(new TextEncoder().encode('{"type":"stop_completion"}').buffer as ArrayBuffer);
    expect((await socket.until('error'))[0]).toMatchObject({ code: 'invalid_frame' });
    expect((await session(id)).status).toBe(404);
  });

  it('answers of the wrong kind, twice, or a completion while one runs', async () => {
    const id = newSessionId();
    const socket = await openSocket(id);
    const tools = [{ name: 'ask_user', parameters: { type: 'object', properties: {} } }];
    const client = await pendingCall(socket, 'call ask_user {}; remember tea', { tools });
    const permission = (await session(id)).body.pendingToolCalls.find((call: any) => call.awaiting === 'permission');
    const before = await snapshot(id);

    socket.send({ type: 'tool_confirmation_response', tool_call_id: client.id, action: 'approve' });
    expect((await socket.until('error'))[0]).toMatchObject({ code: 'unknown_tool_call' });
    socket.send({ type: 'append_message', role: 'tool', tool_call_id: permission.toolCallId, content: 'x' });
    expect((await socket.until('error'))[0]).toMatchObject({ code: 'unknown_tool_call' });
    expect(await snapshot(id)).toEqual(before);

    socket.send({ type: 'append_message', role: 'tool', tool_call_id: client.id, content: 'yes' });
    await socket.until('message_appended');
    const staged = await snapshot(id);
    socket.send({ type: 'append_message', role: 'tool', tool_call_id: client.id, content: 'yes again' });
    expect((await socket.until('error'))[0]).toMatchObject({ code: 'already_answered' });
    expect(await snapshot(id)).toEqual(staged);

    // Answering the last call starts the completion; a second one meanwhile is refused.
    socket.send({ type: 'tool_confirmation_response', tool_call_id: permission.toolCallId, action: 'approve' });
    await socket.until('tool_confirmation_processed');
    await socket.until('completion_done');

    socket.send({ type: 'append_message', role: 'user', content: 'slow one' });
    await socket.until('message_appended');
    socket.send({ type: 'request_completion', model: 'openai:script/slow' });
    await socket.until('llm_text_chunk');
    socket.send({ type: 'request_completion', request_id: 'second' });
    expect((await socket.until('error'))[0]).toMatchObject({ code: 'session_busy', request_id: 'second' });
    await socket.until('completion_done');
    checkHistoryInvariants(await history(id));
  });
});
