/**
 * `POST /mcp` at the transport (src/http/mcp-server.ts): what the MCP clients' conformance test
 * (test/clients/mcp-server.clients.test.ts, the official SDK's client) does not send. Each bad
 * request is refused as MCP's transport refuses one, in JSON-RPC's words, and runs nothing.
 */
import { describe, expect, it } from 'vitest';
import { fetchWorker } from '../helpers/api';

const ACCEPT = 'application/json, text/event-stream';
const post = (body: unknown, headers: Record<string, string> = {}) =>
  fetchWorker('/mcp', { method: 'POST', headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
const call = (id: number | string, method: string, params?: Record<string, unknown>) => ({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });

describe('the MCP door’s transport', () => {
  it('answers initialize with the version the client asked for when it speaks it, else its newest', async () => {
    const asked = await (await post(call(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } }))).json<any>();
    expect(asked).toMatchObject({ jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'edge-agent-turns' } } });
    const unknown = await (await post(call(2, 'initialize', { protocolVersion: '1999-01-01', capabilities: {}, clientInfo: { name: 't', version: '1' } }))).json<any>();
    expect(unknown.result.protocolVersion).toBe('2025-11-25');
  });

  it('lists its tools with JSON Schemas, answers ping, and takes notifications with 202', async () => {
    const listed = await (await post(call(1, 'tools/list'))).json<any>();
    expect(listed.result.tools.map((tool: any) => tool.name)).toEqual(['chat', 'answer_tool_call', 'list_sessions', 'get_messages', 'list_turns']);
    expect(listed.result.tools[0].inputSchema).toMatchObject({ type: 'object', properties: { message: { type: 'string' } }, required: ['message'] });
    expect(await (await post(call(2, 'ping'))).json()).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    const notified = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(notified.status).toBe(202);
    expect(await notified.text()).toBe('');
  });

  it('answers a batch in one array, each by its id', async () => {
    const answers = await (await post([call('a', 'ping'), { jsonrpc: '2.0', method: 'notifications/initialized' }, call(7, 'tools/list')])).json<any[]>();
    expect(answers.map((answer) => answer.id)).toEqual(['a', 7]);
  });

  it('refuses a call of an unknown method or tool as JSON-RPC errors, and bad arguments as a result the model can read', async () => {
    expect(await (await post(call(1, 'resources/list'))).json()).toMatchObject({ id: 1, error: { code: -32601 } });
    expect(await (await post(call(2, 'tools/call', { name: 'nope', arguments: {} }))).json()).toMatchObject({ id: 2, error: { code: -32602, message: 'Tool "nope" not found.' } });
    expect(await (await post(call(3, 'tools/call', { arguments: {} }))).json()).toMatchObject({ id: 3, error: { code: -32602, message: expect.stringMatching(/^Invalid params: name: /) } });
    // The message names what is wrong: here the progress token, not the tool's name, which is there.
    const token = await (await post(call(5, 'tools/call', { name: 'chat', arguments: { message: 'hi' }, _meta: { progressToken: 7.5 } }))).json();
    expect(token).toMatchObject({ id: 5, error: { code: -32602, message: expect.stringMatching(/^Invalid params: _meta\.progressToken: /) } });
    const bad = await (await post(call(4, 'tools/call', { name: 'chat', arguments: { message: '' } }))).json<any>();
    expect(bad).toMatchObject({ id: 4, result: { isError: true, content: [{ type: 'text', text: 'Input validation error: message: Too small: expected string to have >=1 characters.' }] } });
  });

  it('names a method or tool it does not know by its first 64 characters: a name of megabytes is not sent back', async () => {
    const long = 'x'.repeat(1_000_000);
    const method = await (await post(call(1, long))).json<any>();
    expect(method.error).toEqual({ code: -32601, message: `Method not found: "${'x'.repeat(64)}"….` });
    const tool = await (await post(call(2, 'tools/call', { name: long, arguments: {} }))).json<any>();
    expect(tool.error).toEqual({ code: -32602, message: `Tool "${'x'.repeat(64)}"… not found.` });
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };
    const modern = await post(call(3, 'tools/call', { name: long, arguments: {}, _meta: meta }), { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'chat' });
    expect((await modern.text()).length).toBeLessThan(400);
  });

  it.each([
    ['no Accept for SSE', call(1, 'ping'), { accept: 'application/json' }, 406, -32000],
    ['a body that is not JSON', '{"jsonrpc":', {}, 400, -32700],
    ['a message that is not JSON-RPC', { jsonrpc: '1.0', id: 1, method: 'ping' }, {}, 400, -32600],
    ['an empty batch', [], {}, 400, -32600],
    // MCP's ids are strings or integers, never null: such a message is no notification, to be taken with a 202 and never answered.
    ['a request whose id is null', { jsonrpc: '2.0', id: null, method: 'ping' }, {}, 400, -32600],
    ['a request whose id is an object', { jsonrpc: '2.0', id: { n: 1 }, method: 'tools/list' }, {}, 400, -32600],
    ['a request whose id is a fraction', { jsonrpc: '2.0', id: 1.5, method: 'ping' }, {}, 400, -32600],
    ['an unsupported protocol version', call(1, 'ping'), { 'mcp-protocol-version': '1999-01-01' }, 400, -32022],
    ['another content type', call(1, 'ping'), { 'content-type': 'text/plain' }, 415, -32000],
    ['a body nested too deep', call(1, 'tools/call', { name: 'chat', arguments: { message: 'x', deep: JSON.parse('['.repeat(200) + ']'.repeat(200)) } }), {}, 400, -32700],
    ['a body over 10 MiB', { ...call(1, 'ping'), params: { pad: 'x'.repeat(10 * 1024 * 1024 + 1) } }, {}, 413, -32000],
    ['a Content-Encoding it does not take', call(1, 'ping'), { 'content-encoding': 'br' }, 415, -32000],
    ['a body its Content-Encoding does not decode', call(1, 'ping'), { 'content-encoding': 'gzip' }, 400, -32700],
  ])('refuses %s', async (_label, body, headers, status, code) => {
    const response = await post(body, headers as Record<string, string>);
    expect(response.status).toBe(status);
    expect(await response.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code } });
  });

  describe('in MCP’s 2026-07-28 revision', () => {
    const MODERN = '2026-07-28';
    const meta = (version = MODERN) => ({ 'io.modelcontextprotocol/protocolVersion': version, 'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} });
    const modern = (id: number, method: string, params: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
      post(call(id, method, { ...params, _meta: { ...meta(), ...(params._meta as object) } }), { 'mcp-protocol-version': MODERN, 'mcp-method': method, ...headers });

    it('answers server/discover, lists and calls its tools without a handshake, each result complete', async () => {
      const discovered = await (await modern(1, 'server/discover')).json<any>();
      expect(discovered).toMatchObject({ id: 1, result: { supportedVersions: [MODERN, '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'], capabilities: { tools: {} }, resultType: 'complete', ttlMs: expect.any(Number), cacheScope: 'private' } });
      expect(discovered.result._meta['io.modelcontextprotocol/serverInfo']).toMatchObject({ name: 'edge-agent-turns' });
      const listed = await (await modern(2, 'tools/list')).json<any>();
      expect(listed.result).toMatchObject({ resultType: 'complete', cacheScope: 'private' });
      expect(listed.result.tools.map((tool: any) => tool.name)).toEqual(['chat', 'answer_tool_call', 'list_sessions', 'get_messages', 'list_turns']);
      const listedSessions = await (await modern(3, 'tools/call', { name: 'list_sessions', arguments: {} }, { 'mcp-name': 'list_sessions' })).json<any>();
      expect(listedSessions.result).toMatchObject({ resultType: 'complete', structuredContent: { sessions: [] } });
      // A name in the header's base64 form is read as the name.
      const encoded = await modern(4, 'tools/call', { name: 'list_sessions', arguments: {} }, { 'mcp-name': `=?base64?${btoa('list_sessions')}?=` });
      expect(encoded.status).toBe(200);
    });

    it.each([
      ['a batch', () => post([call(1, 'tools/list', { _meta: meta() })], { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' }), 400, -32600],
      ['a request without _meta', () => post(call(1, 'tools/list'), { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' }), 400, -32602],
      ['a _meta version other than the header’s', () => post(call(1, 'tools/list', { _meta: meta('2025-11-25') }), { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' }), 400, -32020],
      ['a _meta version without the header', () => post(call(1, 'tools/list', { _meta: meta() }), { 'mcp-method': 'tools/list' }), 400, -32020],
      ['a version it does not speak, in both', () => post(call(1, 'tools/list', { _meta: meta('2030-01-01') }), { 'mcp-protocol-version': '2030-01-01', 'mcp-method': 'tools/list' }), 400, -32022],
      ['no Mcp-Method', () => post(call(1, 'tools/list', { _meta: meta() }), { 'mcp-protocol-version': MODERN }), 400, -32020],
      ['an Mcp-Method other than the body’s', () => modern(1, 'tools/list', {}, { 'mcp-method': 'tools/call' }), 400, -32020],
      ['a tools/call without Mcp-Name', () => modern(1, 'tools/call', { name: 'chat', arguments: { message: 'hi', sessionId: 'mcp-modern-refused' } }), 400, -32020],
      ['an Mcp-Name other than the body’s', () => modern(1, 'tools/call', { name: 'chat', arguments: { message: 'hi', sessionId: 'mcp-modern-refused' } }, { 'mcp-name': 'list_sessions' }), 400, -32020],
      ['the handshake, which the revision has not', () => modern(1, 'initialize', { protocolVersion: MODERN, capabilities: {}, clientInfo: { name: 't', version: '1' } }), 404, -32601],
      ['ping, which the revision has not', () => modern(1, 'ping'), 404, -32601],
      ['a method it does not know', () => modern(1, 'resources/list'), 404, -32601],
    ])('refuses %s as a modern server does', async (_label, send, status, code) => {
      const response = await send();
      expect(response.status).toBe(status);
      expect((await response.json<any>()).error).toMatchObject({ code });
    });

    it('runs nothing for a refused call: no session is made', async () => {
      await modern(1, 'tools/call', { name: 'chat', arguments: { message: 'hi', sessionId: 'mcp-modern-refused' } }, { 'mcp-name': 'get_messages' });
      expect((await fetchWorker('/sessions/mcp-modern-refused/messages')).status).toBe(404);
    });
  });

  it('answers a session id the turns API could not name as an input error of each tool that takes one, and makes no session', async () => {
    const calls = [
      { name: 'chat', arguments: { message: 'hi', sessionId: 'bad id!' } },
      { name: 'answer_tool_call', arguments: { sessionId: 'a/b', toolCallId: 'call_1', granted: true } },
      { name: 'get_messages', arguments: { sessionId: 'x'.repeat(129) } },
    ];
    for (const [index, params] of calls.entries()) {
      const answered = await (await post(call(index, 'tools/call', params))).json<any>();
      expect(answered, params.name).toMatchObject({ id: index, result: { isError: true, content: [{ type: 'text', text: expect.stringMatching(/^Input validation error: sessionId: Session ids are 1 to 128 characters/) }] } });
    }
    const listed = await (await fetchWorker('/sessions')).json<{ sessions: unknown[] }>();
    expect(listed.sessions).toEqual([]);
  });

  it('answers a model the deployment does not allow as an error result of chat, and makes no session', async () => {
    const answered = await (await post(call(1, 'tools/call', { name: 'chat', arguments: { message: 'hi', sessionId: 'mcp-no-model', model: 'openai:not-allowed' } }))).json<any>();
    expect(answered.result).toMatchObject({ isError: true, structuredContent: { error: { code: 'model_not_allowed' } } });
    expect((await fetchWorker('/sessions/mcp-no-model/messages')).status).toBe(404);
  });

  it('runs nothing for a refused call: no session is made', async () => {
    await post(call(1, 'tools/call', { name: 'chat', arguments: { message: 'hi', sessionId: 'mcp-refused' } }), { accept: 'application/json' });
    const messages = await fetchWorker('/sessions/mcp-refused/messages');
    expect(messages.status).toBe(404);
  });
});
