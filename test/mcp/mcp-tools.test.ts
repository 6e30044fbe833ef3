/**
 * MCP servers as server tools, against a real MCP server (`test/helpers/mcp-server.ts`, built with
 * the official SDK) named three ways in `MCP_SERVERS` (see `vitest.config.ts`): `kit` (trusted),
 * `vault` (untrusted but `echo`), `gone` (not there). Through the turns API and the chat socket.
 * One file, run in order, so that the server's counts belong to these tests alone.
 */
import { describe, expect, it } from 'vitest';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { checkHistoryInvariants, fetchWorker, history, jsonTurn, newSessionId, postTurn, session, streamTurn, user } from '../helpers/api';
import { sentWith } from '../helpers/upstream-log';
import { complete, openSocket } from '../helpers/socket';
import { CHART_PNG } from '../helpers/mcp-fixtures';
import { openConnections } from '../helpers/open-connections';
import { mcpLog, mcpUrl } from '../helpers/mcp-log';
import { readUntil } from '../helpers/read-until';


describe('MCP tools through the turns API', () => {
  it('offers every listed tool as server__tool, with its schema; an unreachable server offers none', async () => {
    const id = newSessionId('mcp-offer');
    await jsonTurn(id, { messages: [user(`offer ${id}`)], model: 'openai:replay/openai/gpt-4o-text-usage' });
    const [sent] = await sentWith(`offer ${id}`);
    const names: string[] = sent.tools.map((tool: any) => tool.function.name);
    expect(names).toEqual(expect.arrayContaining(['calculator', 'kit__echo', 'kit__chart', 'kit__fail', 'kit__slow', 'vault__echo', 'vault__chart']));
    expect(names.some((name) => name.startsWith('gone__'))).toBe(false);
    const echo = sent.tools.find((tool: any) => tool.function.name === 'kit__echo').function;
    expect(echo.description).toBe('Says the text back.');
    expect(echo.parameters).toMatchObject({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] });
  });

  it('leaves the MCP servers’ tools out first where a server takes fewer than are offered (OpenAI: 128)', async () => {
    const id = newSessionId('mcp-many');
    const offered = async () => (await sentWith(`offer ${id}`)).map((body) => body.tools.map((tool: any) => tool.function.name) as string[]);
    await jsonTurn(id, { messages: [user(`offer ${id}`)], model: 'openai:replay/openai/gpt-4o-text-usage' });
    const [all] = await offered();
    const remote = all!.filter((name) => name.includes('__'));
    // Client tools enough to pass 128 by two: the two last MCP tools go, nothing else.
    const tools = Array.from({ length: 130 - all!.length }, (_, index) => ({ name: `client_tool_${index}` }));
    await jsonTurn(id, { messages: [user(`offer ${id} again`)], tools, model: 'openai:replay/openai/gpt-4o-text-usage' });
    const [, refused, taken] = await offered();
    expect([refused!.length, taken!.length]).toEqual([130, 128]);
    expect(refused!.filter((name) => !taken!.includes(name))).toEqual(remote.slice(-2));
  });

  it('a trusted MCP tool runs inline: its text is the result', async () => {
    const id = newSessionId('mcp-echo');
    const { of, stop } = await streamTurn(id, { messages: [user('call kit__echo {"text":"hello mcp"}')] });
    expect(of('tool_call')[0]).toMatchObject({ name: 'kit__echo', input: { text: 'hello mcp' } });
    expect(of('tool_result')[0]).toMatchObject({ content: 'echo: hello mcp' });
    expect(stop.stopReason).toBe('end_turn');
    checkHistoryInvariants(await history(id));
  });

  it('reads an MCP answer to its end, so that its connection stays open for the next request', async () => {
    const id = newSessionId('mcp-keep');
    const { of } = await streamTurn(id, { messages: [user(`call kit__echo {"text":"keep ${id}"}`)] });
    expect(of('tool_result')[0]).toMatchObject({ content: `echo: keep ${id}` });
    const call = (await mcpLog()).callSockets.find((logged) => logged.args?.text === `keep ${id}`)!;
    expect(call.socket).toBeGreaterThan(0);
    // Cancelled once its response came instead, the SSE answer's connection was closed at once.
    expect(await openConnections(mcpUrl)).toContain(call.socket);
  });

  it('an image result becomes text and image blocks, stored whole', async () => {
    const id = newSessionId('mcp-chart');
    const { of } = await streamTurn(id, { messages: [user('call kit__chart {}')] });
    const expected = [
      { type: 'text', text: 'Here is the chart.' },
      { type: 'image', mimeType: 'image/png', data: CHART_PNG },
    ];
    expect(of('tool_result')[0]!.content).toEqual(expected);
    expect((await history(id)).find((message) => message.role === 'tool')!.content).toEqual(expected);
  });

  it('an MCP error result and a tool that throws are tool errors the model reads; the turn goes on', async () => {
    const id = newSessionId('mcp-fail');
    const { of, stop } = await streamTurn(id, { messages: [user('call kit__fail {}; call kit__crash {}')] });
    // The two run at once: their results come as they finish, matched to their calls by id.
    const resultOf = (name: string) => of('tool_result').find((result) => result.toolCallId === of('tool_call').find((call) => call.name === name)?.toolCallId);
    expect(resultOf('kit__fail')).toMatchObject({ isError: true, content: 'the disk is full' });
    expect(resultOf('kit__crash')).toMatchObject({ isError: true, content: expect.stringContaining('crashed on purpose') });
    expect(stop.stopReason).toBe('end_turn');
    expect(of('text_delta').map((delta) => delta.delta).join('')).toContain('the disk is full');
  });

  it('bad arguments are the MCP server’s to refuse, and come back as a tool error', async () => {
    const id = newSessionId('mcp-args');
    const { of, stop } = await streamTurn(id, { messages: [user('call kit__echo {"text": 42}')] });
    expect(of('tool_result')[0]).toMatchObject({ isError: true });
    expect(stop.stopReason).toBe('end_turn');
  });

  it('an untrusted MCP tool waits for permission; granted it runs, denied it never reaches the server', async () => {
    const id = newSessionId('mcp-vault');
    const asked = await jsonTurn(id, { messages: [user('call vault__chart {}')] });
    expect(asked.stopReason).toBe('tool_use');
    const [pending] = (await session(id)).body.pendingToolCalls;
    expect(pending).toMatchObject({ name: 'vault__chart', awaiting: 'permission' });
    const before = (await mcpLog()).calls.length;
    const granted = await jsonTurn(id, { messages: [{ role: 'tool_permission', toolCallId: pending.toolCallId, granted: true }] });
    expect(granted.stopReason).toBe('end_turn');
    expect((await mcpLog()).calls.slice(before)).toEqual([{ tool: 'chart', args: {} }]);

    await jsonTurn(id, { messages: [user('call vault__fail {}')] });
    const [again] = (await session(id)).body.pendingToolCalls;
    const quiet = (await mcpLog()).calls.length;
    await jsonTurn(id, { messages: [{ role: 'tool_permission', toolCallId: again.toolCallId, granted: false, reason: 'not now' }] });
    expect((await mcpLog()).calls.length).toBe(quiet);
    // A per-tool override: vault's echo is trusted and runs inline.
    expect((await jsonTurn(id, { messages: [user('call vault__echo {"text":"open"}')] })).stopReason).toBe('end_turn');
    checkHistoryInvariants(await history(id));
  });

  it('a client tool may not take an MCP tool’s name', async () => {
    const id = newSessionId('mcp-clash');
    const response = await postTurn(id, { messages: [user('hi')], tools: [{ name: 'kit__echo' }] });
    expect(response.status).toBe(400);
    expect(((await response.json()) as any).error.code).toBe('tool_name_conflict');
    expect((await session(id)).status).toBe(404);
  });

  it('the cancel of a turn reaches the running MCP call', async () => {
    const id = newSessionId('mcp-cancel');
    const tag = `cancel-${id}`;
    const response = await postTurn(id, { messages: [user(`call kit__slow {"ms": 8000, "tag": "${tag}"}`)], stream: 'delta' });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
    const seen = await readUntil(reader, (events) => events.some((event) => event.event === 'tool_call'), 'a tool_call');
    await expect.poll(async () => (await mcpLog()).calls.some((call) => call.args.tag === tag)).toBe(true);

    const turnId = JSON.parse(seen[0]!.data).turnId;
    const cancelled = await fetchWorker(`/sessions/${id}/turns/${turnId}/cancel`, { method: 'POST' });
    expect(cancelled.status).toBe(200);
    await expect.poll(async () => (await mcpLog()).cancelled).toContain(tag);
    const stored = await history(id);
    expect(stored.find((message) => message.role === 'tool')).toMatchObject({ isError: true, content: 'Tool execution was interrupted' });
    await reader.cancel();
  });

  it('keeps each server’s list for MCP_LIST_TTL_SECONDS, then lists it again', async () => {
    const id = newSessionId('mcp-cache');
    await jsonTurn(id, { messages: [user('hello')] }); // lists, or uses a list this isolate already has
    await new Promise((resolve) => setTimeout(resolve, 3200));
    const start = (await mcpLog()).lists;
    await jsonTurn(id, { messages: [user('hello again')] });
    expect((await mcpLog()).lists - start).toBe(2); // kit and vault, listed again after 3 s
    await jsonTurn(id, { messages: [user('and again')] });
    await jsonTurn(id, { messages: [user('once more')] });
    expect((await mcpLog()).lists - start).toBe(2); // kept
    // The header named a secret; the server saw it every time.
    expect((await mcpLog()).unauthorized).toBe(0);
  });

  it('keeps the lists for every session of the isolate: a new session’s first turn lists no server again', async () => {
    await jsonTurn(newSessionId('mcp-shared-a'), { messages: [user('hello')] }); // lists, or uses the isolate's lists
    const start = (await mcpLog()).lists;
    const second = newSessionId('mcp-shared-b');
    await jsonTurn(second, { messages: [user(`shared ${second}`)], model: 'openai:replay/openai/gpt-4o-text-usage' });
    expect((await mcpLog()).lists - start).toBe(0);
    // Its tools are offered all the same.
    const [sent] = await sentWith(`shared ${second}`);
    expect(sent.tools.map((tool: { function: { name: string } }) => tool.function.name)).toEqual(expect.arrayContaining(['kit__echo', 'vault__echo']));
  });
});

describe('MCP tools through the chat socket', () => {
  it('an untrusted MCP tool shows as pending, is approved on the socket, and its result comes back', async () => {
    const socket = await openSocket(newSessionId('mcp-socket'));
    const frames = await complete(socket, 'call vault__chart {}');
    const chunk = frames.find((frame) => frame.type === 'tool_call_chunk' && frame.id)!;
    expect(chunk).toMatchObject({ function: { name: 'vault__chart' }, confirmation_state: 'pending' });
    socket.send({ type: 'tool_confirmation_response', tool_call_id: chunk.id, action: 'approve' });
    await socket.until('tool_confirmation_processed');
    const resumed = await socket.until('completion_done');
    expect(resumed.find((frame) => frame.type === 'tool_call')).toEqual({ type: 'tool_call', id: chunk.id, result: 'Here is the chart.\n[image]', show_result: true });

    const echo = await complete(socket, 'call kit__echo {"text":"by socket"}');
    expect(echo.find((frame) => frame.type === 'tool_call')).toMatchObject({ result: 'echo: by socket' });
  });
});
