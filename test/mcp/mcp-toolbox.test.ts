/**
 * The toolbox on its own, against the real test MCP server: a server that goes away after listing,
 * one that forgets its sessions, a call past its timeout, results of every kind, and the
 * configuration's checks.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it, vi } from 'vitest';
import { readConfig } from '../../src/config';
import type { ServerTool } from '../../src/tools/types';
import { McpToolbox, type McpSettings } from '../../src/tools/mcp/mcp-toolbox';
import { McpClient } from '../../src/tools/mcp/mcp-client';
import { toolResultFromMcp } from '../../src/tools/mcp/mcp-result';
import { mcpToolName } from '../../src/tools/mcp/mcp-names';
import { ToolError } from '../../src/tools/types';
import { MCP_TEST_TOKEN } from '../helpers/mcp-fixtures';
import { mcpLog } from '../helpers/mcp-log';

const server = { name: 'kit', url: `${env.MCP_TEST_URL}/mcp`, headers: { 'x-test-token': MCP_TEST_TOKEN }, trustOf: () => 'trusted' as const };
const settings = (overrides: Partial<McpSettings> = {}): McpSettings => ({ servers: [server], listTtlMs: 60_000, listTimeoutMs: 2000, callTimeoutMs: 2000, ...overrides });
const context = (signal = new AbortController().signal) => ({ signal, now: () => new Date(), notes: { save: () => ({ id: 1, text: '', savedAt: '' }), list: () => [] } });
const find = (tools: ServerTool[], name: string) => tools.find((tool) => tool.name === name)!;

describe('the MCP toolbox', () => {
  it('a server that goes away after its list was read: the call is a tool error, not a crash', async () => {
    let down = false;
    const box = new McpToolbox(settings(), (input, init) => (down ? Promise.reject(new TypeError('connection refused')) : fetch(input, init)));
    const turn = await box.forTurn();
    down = true;
    const echo = find(turn.tools, 'kit__echo');
    await expect(echo.execute({ text: 'x' }, context())).rejects.toThrow(ToolError);
    await expect(echo.execute({ text: 'x' }, context())).rejects.toThrow(/kit/);
    await turn.close();
  });

  it('a server that asks for credentials offers nothing, and the log says where they go', async () => {
    const warn = vi.spyOn(console, 'warn');
    // A stand-in, not the test server: its count of unauthorized requests is another file's assertion.
    const locked = async () => new Response('{"error":"unauthorized"}', { status: 401, headers: { 'content-type': 'application/json', 'www-authenticate': 'Bearer' } });
    const box = new McpToolbox(settings({ servers: [{ ...server, name: 'locked', url: 'https://locked.example/mcp', headers: {} }] }), locked);
    expect((await box.forTurn()).tools).toEqual([]);
    const logged = warn.mock.calls.map((args) => args.join(' ')).find((line) => line.includes('"locked"'));
    expect(logged).toMatch(/HTTP 401\. It asks for credentials: give them in the server’s "headers" in MCP_SERVERS\./);
    warn.mockRestore();
  });

  it('a call past its timeout is a tool error', async () => {
    const box = new McpToolbox(settings({ callTimeoutMs: 200 }));
    const turn = await box.forTurn();
    await expect(find(turn.tools, 'kit__slow').execute({ ms: 3000, tag: 'timeout' }, context())).rejects.toThrow(/timed out|timeout/i);
    await turn.close();
  });

  it('a server that is not there offers nothing, and is tried again only after a while', async () => {
    let attempts = 0;
    const box = new McpToolbox(settings({ servers: [{ ...server, name: 'gone', url: 'http://127.0.0.1:9/mcp' }] }), (input, init) => {
      attempts++;
      return fetch(input, init);
    });
    expect((await box.forTurn()).tools).toEqual([]);
    const first = attempts;
    expect((await box.forTurn()).tools).toEqual([]);
    expect(attempts).toBe(first);
  });

  it('a server that answers in JSON rather than SSE serves the same tools', async () => {
    const box = new McpToolbox(settings({ servers: [{ ...server, url: `${env.MCP_TEST_URL}/mcp-json` }] }));
    const turn = await box.forTurn();
    expect(turn.tools.map((tool) => tool.name).sort()).toEqual(['kit__chart', 'kit__crash', 'kit__echo', 'kit__fail', 'kit__slow']);
    expect(await find(turn.tools, 'kit__echo').execute({ text: 'in JSON' }, context())).toBe('echo: in JSON');
    await expect(find(turn.tools, 'kit__fail').execute({}, context())).rejects.toThrow(ToolError);
    await turn.close();
  });

  /** Starts the slow tool of `tools` with `tag`, cancels it once the server has it, and sees the call fail so. */
  const cancelSlow = async (tools: ServerTool[], name: string, tag: string) => {
    const controller = new AbortController();
    const call = find(tools, name).execute({ ms: 5000, tag }, context(controller.signal));
    await expect.poll(async () => (await mcpLog()).calls.some((entry) => entry.args.tag === tag)).toBe(true);
    controller.abort();
    await expect(call).rejects.toThrow(/cancelled/);
  };

  it('ends the server’s session when the turn closes, and tells it of a call it cancels', async () => {
    const box = new McpToolbox(settings());
    const before = await mcpLog();
    const turn = await box.forTurn();
    await cancelSlow(turn.tools, 'kit__slow', 'toolbox-cancel');
    await turn.close();
    const after = await mcpLog();
    expect(after.cancelled).toContain('toolbox-cancel');
    expect(after.ended - before.ended).toBe(1);
  });

  describe('a server that no longer knows its session (restarted, or ending idle ones)', () => {
    const forgetful = (query: string) => settings({ servers: [{ ...server, url: `${env.MCP_TEST_URL}/mcp-forgets?${query}` }] });
    /** What `run` made the server do: answers to requests in a session it had forgotten, and handshakes. */
    const counting = async (run: () => Promise<void>) => {
      const before = (await mcpLog()).forgetful;
      await run();
      const after = (await mcpLog()).forgetful;
      return { refused: after.refused - before.refused, initializes: after.initializes - before.initializes };
    };

    for (const [answer, words] of [
      ['404', 'MCP’s 404'],
      ['400', 'the Python SDK’s 400 that names the session'],
    ] as const) {
      it(`begins a new session and sends the call again, on ${words}`, async () => {
        const made = await counting(async () => {
          const turn = await new McpToolbox(forgetful(`after=list&answer=${answer}`)).forTurn();
          expect(await find(turn.tools, 'kit__echo').execute({ text: 'again' }, context())).toBe('echo: again');
          await turn.close();
        });
        expect(made).toEqual({ refused: 1, initializes: 2 });
      });
    }

    it('calls that meet the refusal together begin one new session between them', async () => {
      const made = await counting(async () => {
        const turn = await new McpToolbox(forgetful('after=list&answer=404')).forTurn();
        const echo = find(turn.tools, 'kit__echo');
        expect(await Promise.all([echo.execute({ text: 'one' }, context()), echo.execute({ text: 'two' }, context())])).toEqual(['echo: one', 'echo: two']);
        await turn.close();
      });
      expect(made).toEqual({ refused: 2, initializes: 2 });
    });

    it('tries a new session once: a server that forgets that one too offers nothing, and is not asked again and again', async () => {
      const made = await counting(async () => {
        expect((await new McpToolbox(forgetful('after=handshake&answer=404')).forTurn()).tools).toEqual([]);
      });
      expect(made).toEqual({ refused: 2, initializes: 2 });
    });

    it('a 400 that names something else is the request’s own refusal: no new session', async () => {
      const made = await counting(async () => {
        const turn = await new McpToolbox(forgetful('after=list&answer=400-other')).forTurn();
        await expect(find(turn.tools, 'kit__echo').execute({ text: 'x' }, context())).rejects.toThrow(/HTTP 400/);
        await turn.close();
      });
      expect(made).toEqual({ refused: 1, initializes: 1 });
    });
  });

  describe('servers of MCP’s 2026-07-28 revision (the official SDK’s v2)', () => {
    const at = (name: string, path: string) => settings({ servers: [{ ...server, name, url: `${env.MCP_TEST_URL}${path}` }] });
    const seen = async (path: string, since: number) => (await mcpLog()).modern.slice(since).filter((entry) => entry.path === path);

    it('a server of that revision alone: found by server/discover, no handshake, the calls in its headers', async () => {
      const since = (await mcpLog()).modern.length;
      const turn = await new McpToolbox(at('modern', '/mcp-modern')).forTurn();
      expect(turn.tools.map((tool) => tool.name).sort()).toEqual(['modern__echo', 'modern__sql']);
      expect(await find(turn.tools, 'modern__echo').execute({ text: 'hi' }, context())).toBe('echo: hi');
      // The server refuses a call whose `region` is not in `Mcp-Param-Region`; a value outside ASCII goes in base64.
      expect(await find(turn.tools, 'modern__sql').execute({ region: 'eu-west', query: 'q' }, context())).toBe('eu-west: q');
      expect(await find(turn.tools, 'modern__sql').execute({ region: 'Zürich', query: 'q' }, context())).toBe('Zürich: q');
      await turn.close();
      const requests = await seen('/mcp-modern', since);
      expect(requests.map((entry) => entry.method)).toEqual(['server/discover', 'tools/list', 'tools/call', 'tools/call', 'tools/call']);
      expect(requests.slice(3).map((entry) => entry.region)).toEqual(['eu-west', `=?base64?${btoa(String.fromCharCode(...new TextEncoder().encode('Zürich')))}?=`]);

      // The server's era is kept: the next turn connects without a round trip.
      const again = (await mcpLog()).modern.length;
      const next = await new McpToolbox(at('modern', '/mcp-modern')).forTurn();
      expect(await find(next.tools, 'modern__echo').execute({ text: 'again' }, context())).toBe('echo: again');
      expect((await seen('/mcp-modern', again)).map((entry) => entry.method)).toEqual(['tools/list', 'tools/call']);
    });

    /** A modern server in a few lines: `answer(method, params)` gives each request's result, or a Response. */
    const modernFake = (answer: (method: string, headers: Headers, id: number) => unknown) => async (_input: RequestInfo | URL, init?: RequestInit) => {
      const { id, method } = JSON.parse(String(init?.body));
      const given = answer(method, new Headers(init?.headers), id);
      return given instanceof Response ? given : Response.json({ jsonrpc: '2.0', id, result: { resultType: 'complete', ...(given as object) } });
    };
    const discovered = { supportedVersions: ['2026-07-28'], capabilities: { tools: {} } };
    const fakeAt = (url: string) => settings({ servers: [{ ...server, name: 'fake', url }] });

    it('leaves out a tool whose x-mcp-header breaks the rules, and keeps the others', async () => {
      const box = new McpToolbox(fakeAt('https://modern-broken.example/mcp'), modernFake((method) => {
        if (method === 'server/discover') return discovered;
        return { tools: [{ name: 'ok', inputSchema: { type: 'object' } }, { name: 'bad', inputSchema: { type: 'object', properties: { r: { type: 'number', 'x-mcp-header': 'R' } } } }] };
      }));
      expect((await box.forTurn()).tools.map((tool) => tool.name)).toEqual(['fake__ok']);
    });

    it('a result with nulls where MCP leaves fields out is read as if they were left out', async () => {
      const box = new McpToolbox(fakeAt('https://modern-nulls.example/mcp'), modernFake((method) => {
        if (method === 'server/discover') return discovered;
        if (method === 'tools/list') return { tools: [{ name: 'a', inputSchema: { type: 'object' } }] };
        return { content: [{ type: 'text', text: 'fine' }], isError: null, structuredContent: null };
      }));
      const turn = await box.forTurn();
      expect(await find(turn.tools, 'fake__a').execute({}, context())).toBe('fine');
    });

    it('a result that asks for input this agent cannot give is a tool error', async () => {
      const box = new McpToolbox(fakeAt('https://modern-asks.example/mcp'), modernFake((method) => {
        if (method === 'server/discover') return discovered;
        if (method === 'tools/list') return { tools: [{ name: 'ask', inputSchema: { type: 'object' } }] };
        return { resultType: 'input_required', inputRequests: { q: { method: 'elicitation/create', params: { message: 'Which one?' } } } };
      }));
      const turn = await box.forTurn();
      await expect(find(turn.tools, 'fake__ask').execute({}, context())).rejects.toThrow(/asked for input/);
    });

    it('a modern server replaced by a legacy one is connected to again, in its era', async () => {
      let legacy = false;
      const methods: string[] = [];
      const box = new McpToolbox(fakeAt('https://replaced.example/mcp'), modernFake((method, headers, id) => {
        methods.push(method);
        if (!legacy) return method === 'server/discover' ? discovered : { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] };
        if (method === 'server/discover') return new Response('Bad Request: No valid session ID provided', { status: 400 });
        if (method === 'initialize') {
          const result = { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'old', version: '1' } };
          return new Response(JSON.stringify({ jsonrpc: '2.0', id, result }), { headers: { 'content-type': 'application/json', 'mcp-session-id': 's1' } });
        }
        if (method === 'notifications/initialized') return new Response(null, { status: 202 });
        // As the SDK's legacy servers answer a request without their session.
        if (headers.get('mcp-session-id') !== 's1') return new Response('Bad Request: Server not initialized', { status: 400, headers: { 'content-type': 'text/plain' } });
        return { content: [{ type: 'text', text: 'from the old server' }] };
      }));
      const turn = await box.forTurn();
      legacy = true;
      expect(await find(turn.tools, 'fake__echo').execute({}, context())).toBe('from the old server');
      expect(methods).toEqual(['server/discover', 'tools/list', 'tools/call', 'server/discover', 'initialize', 'notifications/initialized', 'tools/call']);
    });

    it('a server of both eras is spoken to in the new one', async () => {
      const since = (await mcpLog()).modern.length;
      const turn = await new McpToolbox(at('dual', '/mcp-dual')).forTurn();
      expect(await find(turn.tools, 'dual__sql').execute({ region: 'us', query: 'q' }, context())).toBe('us: q');
      await turn.close();
      expect((await seen('/mcp-dual', since)).map((entry) => entry.method)).toEqual(['server/discover', 'tools/list', 'tools/call']);
    });
  });

  it('speaks to a server of the older HTTP+SSE transport, found when its URL takes no POST, and closes its stream with the turn', async () => {
    const at = settings({ servers: [{ ...server, name: 'old', url: `${env.MCP_TEST_URL}/sse` }] });
    const before = await mcpLog();
    const turn = await new McpToolbox(at).forTurn();
    expect(turn.tools.map((tool) => tool.name).sort()).toEqual(['old__chart', 'old__crash', 'old__echo', 'old__fail', 'old__slow']);
    expect(await find(turn.tools, 'old__echo').execute({ text: 'over SSE' }, context())).toBe('echo: over SSE');
    await expect(find(turn.tools, 'old__fail').execute({}, context())).rejects.toThrow(ToolError);
    await turn.close();
    await expect.poll(async () => (await mcpLog()).sseClosed - before.sseClosed).toBe(1);
    const seen = (await mcpLog()).sse.slice(before.sse.length);
    expect(seen).toEqual([
      'POST /sse server/discover',
      'POST /sse initialize',
      'GET /sse',
      'POST /messages initialize',
      'POST /messages notifications/initialized',
      'POST /messages tools/list',
      'POST /messages tools/call',
      'POST /messages tools/call',
    ]);

    // Its transport is kept: the next turn opens the stream at once, and a cancelled call is told to the server.
    const again = (await mcpLog()).sse.length;
    const next = await new McpToolbox(at).forTurn();
    await cancelSlow(next.tools, 'old__slow', 'sse-cancel');
    await next.close();
    expect((await mcpLog()).sse.slice(again)).toEqual(['GET /sse', 'POST /messages initialize', 'POST /messages notifications/initialized', 'POST /messages tools/list', 'POST /messages tools/call', 'POST /messages notifications/cancelled']);
    expect((await mcpLog()).cancelled).toContain('sse-cancel');
  });

  /**
   * A server of the HTTP+SSE transport in a few lines (each GET a stream, messages at `/messages`), or,
   * once `upgraded`, of Streamable HTTP at its URL, without sessions.
   */
  const oldServer = () => {
    const streams: WritableStreamDefaultWriter<string>[] = [];
    const state = { upgraded: false };
    const resultOf = (method: string, where: string) =>
      method === 'initialize'
        ? { protocolVersion: '2024-11-05', capabilities: {}, serverInfo: { name: 'old', version: '1' } }
        : method === 'tools/list'
          ? { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] }
          : { content: [{ type: 'text', text: `on ${where}` }] };
    const fetcher = async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = new URL(String(input));
      const body = init?.body ? JSON.parse(String(init.body)) : {};
      if (state.upgraded) {
        if (init?.method !== 'POST') return new Response(null, { status: 405 });
        if (body.method === 'server/discover') return Response.json({ jsonrpc: '2.0', id: body.id, error: { code: -32601, message: 'Method not found' } });
        return body.id === undefined ? new Response(null, { status: 202 }) : Response.json({ jsonrpc: '2.0', id: body.id, result: resultOf(body.method, 'Streamable HTTP') });
      }
      if (init?.method === 'GET') {
        const { readable, writable } = new TransformStream<string, string>();
        const writer = writable.getWriter();
        streams.push(writer);
        void writer.write(`event: endpoint\ndata: /messages?stream=${streams.length}\n\n`);
        return new Response(readable.pipeThrough(new TextEncoderStream()), { headers: { 'content-type': 'text/event-stream' } });
      }
      if (url.pathname !== '/messages') return new Response('Method Not Allowed', { status: 405 });
      const stream = Number(url.searchParams.get('stream'));
      if (body.id !== undefined) void streams[stream - 1]!.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: body.id, result: resultOf(body.method, `stream ${stream}`) })}\n\n`);
      return new Response('Accepted', { status: 202 });
    };
    return { fetcher, streams, state };
  };
  const oldAt = (url: string) => settings({ servers: [{ ...server, name: 'old', url }] });

  it('opens the event stream again when it ended before a call (a proxy that closes idle streams)', async () => {
    const { fetcher, streams } = oldServer();
    const turn = await new McpToolbox(oldAt('https://sse-ends.example/sse'), fetcher).forTurn();
    await streams[0]!.close();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await find(turn.tools, 'old__echo').execute({}, context())).toBe('on stream 2');
    await turn.close();
  });

  it('refuses an event stream that names an endpoint of another origin: no message goes there', async () => {
    const posted: string[] = [];
    const fetcher = async (input: RequestInfo | URL, init?: RequestInit) => {
      if (init?.method === 'GET') return new Response('event: endpoint\ndata: https://elsewhere.example/messages\n\n', { headers: { 'content-type': 'text/event-stream' } });
      posted.push(String(input));
      return new Response('Method Not Allowed', { status: 405 });
    };
    expect((await new McpToolbox(oldAt('https://sse-elsewhere.example/sse'), fetcher).forTurn()).tools).toEqual([]);
    expect(posted.every((url) => url.startsWith('https://sse-elsewhere.example/'))).toBe(true);
  });

  it('finds the transport again when a server once of HTTP+SSE serves Streamable HTTP instead', async () => {
    const { fetcher, state } = oldServer();
    const at = oldAt('https://sse-upgraded.example/sse');
    await (await new McpToolbox(at, fetcher).forTurn()).close();
    state.upgraded = true;
    // The turn that finds the stream gone offers the server's tools no more (its list failed)…
    expect((await new McpToolbox(at, fetcher).forTurn()).tools).toEqual([]);
    // …and the next one finds its transport again.
    const turn = await new McpToolbox(at, fetcher).forTurn();
    expect(await find(turn.tools, 'old__echo').execute({}, context())).toBe('on Streamable HTTP');
  });

  it('reads a list no further than a cursor it gave before, or its hundredth page; a null cursor ends it', async () => {
    const paging = (next: (page: number) => string | null, tool: (page: number) => Record<string, unknown> = (page) => ({ name: `t${page}`, inputSchema: { type: 'object' } })) => {
      let pages = 0;
      const fetcher = async (_input: RequestInfo | URL, init?: RequestInit) => {
        const { id, method } = JSON.parse(String(init?.body));
        if (id === undefined) return new Response(null, { status: 202 });
        if (method === 'server/discover') return Response.json({ jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } });
        if (method === 'initialize') return Response.json({ jsonrpc: '2.0', id, result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'pager', version: '1' } } });
        const page = pages++;
        return Response.json({ jsonrpc: '2.0', id, result: { tools: [tool(page)], nextCursor: next(page) } });
      };
      return { box: new McpToolbox(settings({ servers: [{ ...server, name: 'pager', url: 'https://mcp.example/mcp' }] }), fetcher), pages: () => pages };
    };
    const again = paging((page) => (page === 0 ? 'a' : page === 1 ? 'b' : 'a'));
    expect((await again.box.forTurn()).tools.map((tool) => tool.name)).toEqual(['pager__t0', 'pager__t1', 'pager__t2']);
    expect(again.pages()).toBe(3);
    // Nulls where MCP has the field left out, as some servers send them: the list ends there, the tool is described by its name.
    const nulls = paging((page) => (page === 0 ? 'b' : null), (page) => ({ name: `t${page}`, title: null, description: null, inputSchema: { type: 'object' } }));
    const listed = (await nulls.box.forTurn()).tools;
    expect(listed.map((tool) => tool.name)).toEqual(['pager__t0', 'pager__t1']);
    expect(listed[0]!.description).toBe('t0, from the MCP server "pager".');
    const endless = paging((page) => `page-${page + 1}`);
    expect((await endless.box.forTurn()).tools).toHaveLength(100);
    expect(endless.pages()).toBe(100);
  });

  it('keeps a list no longer than its server says it stays fresh (ttlMs, the shortest of its pages), nor than MCP_LIST_TTL_SECONDS', async () => {
    const lister = (ttls: unknown[]) => {
      let lists = 0;
      let clock = 0;
      const fetcher = async (_input: RequestInfo | URL, init?: RequestInit) => {
        const { id, method, params } = JSON.parse(String(init?.body));
        if (id === undefined) return new Response(null, { status: 202 });
        if (method === 'server/discover') return Response.json({ jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } });
        if (method === 'initialize') return Response.json({ jsonrpc: '2.0', id, result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'hinted', version: '1' } } });
        const page = params?.cursor === undefined ? 0 : Number(params.cursor);
        if (page === 0) lists++;
        const next = page + 1 < ttls.length ? { nextCursor: String(page + 1) } : {};
        return Response.json({ jsonrpc: '2.0', id, result: { tools: [{ name: `t${page}`, inputSchema: { type: 'object' } }], ...next, ...(ttls[page] === undefined ? {} : { ttlMs: ttls[page] }) } });
      };
      const box = new McpToolbox(settings({ servers: [{ ...server, name: 'hinted', url: 'https://mcp.example/mcp' }] }), fetcher, () => clock);
      return { box, lists: () => lists, at: (ms: number) => (clock = ms) };
    };
    /** How many times the list was read, for turns at these times (ms). */
    const reads = async (ttls: unknown[], times: number[]) => {
      const { box, lists, at } = lister(ttls);
      for (const time of times) {
        at(time);
        expect((await box.forTurn()).tools.length).toBe(ttls.length);
      }
      return lists();
    };
    expect(await reads([5_000], [0, 4_999, 5_000, 9_999])).toBe(2);
    // ttlMs 0: stale at once, read for every turn (the default of some servers' SDKs).
    expect(await reads([0], [0, 0, 1])).toBe(3);
    // The shortest of the pages' hints.
    expect(await reads([50_000, 2_000, undefined], [0, 1_999, 2_000])).toBe(2);
    // No hint, or one that is not a count: the deployment's own (60 s here), which a longer hint does not stretch.
    expect(await reads([undefined], [0, 59_999, 60_000])).toBe(2);
    expect(await reads([-1], [0, 59_999])).toBe(1);
    expect(await reads([3_600_000], [0, 60_000])).toBe(2);
  });

  it('refuses a server that speaks another MCP version, or answers outside the protocol', async () => {
    const answering = (body: unknown, headers: Record<string, string> = { 'content-type': 'application/json' }) => async (_input: RequestInfo | URL, init?: RequestInit) => {
      const { id } = JSON.parse(String(init?.body));
      return new Response(JSON.stringify(typeof body === 'function' ? body(id) : body), { headers });
    };
    const client = (fetcher: typeof fetch) => new McpClient('https://mcp.example/mcp', {}, fetcher);
    await expect(client(answering((id: number) => ({ jsonrpc: '2.0', id, result: { protocolVersion: '2023-01-01' } }))).connect(1000)).rejects.toThrow(/2023-01-01/);
    await expect(client(answering((id: number) => ({ jsonrpc: '2.0', id: id + 1, result: {} }))).connect(1000)).rejects.toThrow(/no response/);
    await expect(client(answering((id: number) => ({ jsonrpc: '2.0', id, error: { code: -32600, message: 'nope' } }))).connect(1000)).rejects.toThrow(/MCP error -32600: nope/);
    await expect(client(async () => new Response('down', { status: 503 })).connect(1000)).rejects.toThrow(/HTTP 503/);
    const listed = client(answering((id: number) => ({ jsonrpc: '2.0', id, result: { tools: [{ name: 'x' }] } })));
    await expect(listed.listTools(undefined, 1000)).rejects.toThrow(/unexpected shape/);
  });

  it('turns every kind of MCP content into tool result content', () => {
    expect(toolResultFromMcp({ content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] })).toBe('a\nb');
    expect(toolResultFromMcp({ content: [], structuredContent: { n: 1 } })).toBe('{"n":1}');
    expect(
      toolResultFromMcp({
        content: [
          { type: 'image', data: 'AAAA', mimeType: 'image/png' },
          { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
          { type: 'resource_link', uri: 'https://x.io/a', name: 'a' },
          { type: 'resource', resource: { uri: 'file:///b', text: 'inside b' } },
          { type: 'image', data: 'AAAA', mimeType: 'text/html' },
        ],
      }),
    ).toEqual([
      { type: 'image', mimeType: 'image/png', data: 'AAAA' },
      { type: 'text', text: '[audio (audio/wav) not shown]' },
      { type: 'text', text: '[resource a https://x.io/a]' },
      { type: 'text', text: 'inside b' },
      { type: 'text', text: '[an image the server sent without data or type]' },
    ]);
    expect(() => toolResultFromMcp({ isError: true, content: [{ type: 'text', text: 'no' }] })).toThrow(new ToolError('no'));
  });

  it('names tools server__tool in the providers’ alphabet, at most 64 characters', () => {
    expect(mcpToolName('docs', 'search.pages')).toBe('docs__search_pages');
    expect(mcpToolName('docs', 'x'.repeat(100))).toHaveLength(64);
  });
});

describe('MCP_SERVERS', () => {
  const config = (vars: Record<string, string>) => () => readConfig({ ...env, ...vars } as typeof env);

  it.each([
    ['not JSON', '{oops'],
    ['not a list', '{"name":"a"}'],
    ['a bad name', '[{"name":"Bad Name","url":"https://a.io/mcp"}]'],
    ['a bad URL', '[{"name":"a","url":"ftp://a.io/mcp"}]'],
    ['a bad trust', '[{"name":"a","url":"https://a.io/mcp","trust":"maybe"}]'],
    ['an unknown field', '[{"name":"a","url":"https://a.io/mcp","token":"x"}]'],
    ['two servers of one name', '[{"name":"a","url":"https://a.io/mcp"},{"name":"a","url":"https://b.io/mcp"}]'],
  ])('refuses %s as a configuration error naming the variable', (_label, value) => {
    expect(config({ MCP_SERVERS: value })).toThrow(/MCP_SERVERS/);
  });

  it('fills secrets into headers by name, and names a missing one', () => {
    const headers = '{"authorization":"Bearer ${DOCS_TOKEN}"}';
    const servers = `[{"name":"docs","url":"https://docs.example/mcp","headers":${headers},"tools":{"search":"trusted"}}]`;
    const read = config({ MCP_SERVERS: servers, DOCS_TOKEN: 't0ken' })();
    expect(read.mcp!.servers[0]).toMatchObject({ name: 'docs', headers: { authorization: 'Bearer t0ken' } });
    expect(read.mcp!.servers[0]!.trustOf('search')).toBe('trusted');
    expect(read.mcp!.servers[0]!.trustOf('delete')).toBe('untrusted');
    expect(config({ MCP_SERVERS: servers })).toThrow(/DOCS_TOKEN/);
  });
});
