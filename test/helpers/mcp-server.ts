/**
 * A real MCP server for the tests, built with `@modelcontextprotocol/sdk` (`McpServer` over its
 * Streamable HTTP server transport, with sessions), on 127.0.0.1. Its tools: `echo` (text), `chart`
 * (an image), `fail` (an error result), `crash` (a thrown error), `slow` (waits, and notices a
 * cancel). It asks for the header `x-test-token: secret-123`, and keeps a log at `GET /__log`:
 * how many times its tools were listed, each call (with the number of the connection it came on),
 * the calls that were cancelled, and the sessions ended by `DELETE`; `GET /__sockets` lists the
 * numbers of the connections still open (`connections.ts`). `/mcp-json` is the same server without sessions,
 * answering in JSON, not SSE; `/mcp-modern` and `/mcp-dual` are servers of MCP's 2026-07-28 revision
 * (`mcp-modern-server.ts`); `/sse` a server of the older HTTP+SSE transport (`serveSse`). `/mcp-forgets?after=list|handshake&answer=404|400|400-other` forgets
 * a session after its tool list (or as soon as its handshake ends), as a server restarted or
 * one that ends sessions does, and answers a request in a forgotten session as MCP asks (`404`), as
 * the Python SDK's servers do (`400`, "Bad Request: No valid session ID provided"), or with a `400`
 * that names something else; `forgetful` in the log counts its handshakes and those answers to requests (not to `DELETE`).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { numberConnections } from './connections';
import { CHART_PNG, MCP_TEST_TOKEN, type McpLog } from './mcp-fixtures';
import { MODERN_PATHS, serveModern } from './mcp-modern-server';

function buildServer(log: McpLog): McpServer {
  const server = new McpServer({ name: 'test-kit', version: '1.0.0' });
  server.registerTool('echo', { description: 'Says the text back.', inputSchema: { text: z.string() } }, async ({ text }) => {
    log.calls.push({ tool: 'echo', args: { text } });
    return { content: [{ type: 'text', text: `echo: ${text}` }] };
  });
  server.registerTool('chart', { description: 'Draws a small chart as a PNG image.', inputSchema: {} }, async () => {
    log.calls.push({ tool: 'chart', args: {} });
    return { content: [{ type: 'text', text: 'Here is the chart.' }, { type: 'image', data: CHART_PNG, mimeType: 'image/png' }] };
  });
  server.registerTool('fail', { description: 'Always reports a failure.', inputSchema: {} }, async () => {
    log.calls.push({ tool: 'fail', args: {} });
    return { isError: true, content: [{ type: 'text', text: 'the disk is full' }] };
  });
  server.registerTool('crash', { description: 'Throws.', inputSchema: {} }, async () => {
    log.calls.push({ tool: 'crash', args: {} });
    throw new Error('crashed on purpose');
  });
  server.registerTool('slow', { description: 'Waits, then answers.', inputSchema: { ms: z.number(), tag: z.string() } }, async ({ ms, tag }, extra) => {
    log.calls.push({ tool: 'slow', args: { ms, tag } });
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      extra.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        log.cancelled.push(tag);
        resolve();
      });
    });
    return { content: [{ type: 'text', text: `waited ${ms} ms` }] };
  });
  return server;
}

async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : undefined;
}

/** The answer to a request in a session the server has forgotten, in one server's words or another's. */
function refuseSession(response: ServerResponse, answer: string | null): void {
  if (answer === '400') return void response.writeHead(400, { 'content-type': 'text/plain' }).end('Bad Request: No valid session ID provided');
  if (answer === '400-other') return void response.writeHead(400, { 'content-type': 'text/plain' }).end('Bad Request: the arguments are not valid');
  response.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }));
}

/**
 * `/sse`: the 2024-11-05 revision's HTTP+SSE transport, as the SDK's `SSEServerTransport` serves it:
 * GET opens the stream (its first event names `/messages?sessionId=…`), each message is a POST there,
 * answered on the stream; a POST to `/sse` itself is `405`, as such servers answer one.
 */
async function serveSse(request: IncomingMessage, response: ServerResponse, body: unknown, url: URL, log: McpLog, streams: Map<string, SSEServerTransport>): Promise<void> {
  const method = (body as { method?: string } | undefined)?.method;
  log.sse.push(`${request.method} ${url.pathname}${method ? ` ${method}` : ''}`);
  if (url.pathname === '/sse') {
    if (request.method !== 'GET') return void response.writeHead(405, { allow: 'GET' }).end('Method Not Allowed');
    const transport = new SSEServerTransport('/messages', response);
    streams.set(transport.sessionId, transport);
    response.on('close', () => {
      streams.delete(transport.sessionId);
      log.sseClosed++;
    });
    await buildServer(log).connect(transport);
    return;
  }
  const transport = streams.get(url.searchParams.get('sessionId') ?? '');
  if (!transport) return void response.writeHead(404).end('Session not found');
  await transport.handlePostMessage(request, response, body);
}

export async function startMcpServer(): Promise<{ server: Server; url: string }> {
  const log: McpLog = { lists: 0, calls: [], callSockets: [], cancelled: [], unauthorized: 0, ended: 0, forgetful: { initializes: 0, refused: 0 }, modern: [], sse: [], sseClosed: 0 };
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const forgotten = new Set<string>();
  const streams = new Map<string, SSEServerTransport>();
  const server = createServer(async (request, response) => {
    try {
      if (request.url === '/__log') {
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(log));
        return;
      }
      if (connections.served(request, response)) return;
      const url = new URL(request.url ?? '/', 'http://localhost');
      const modern = MODERN_PATHS.includes(url.pathname);
      const sse = url.pathname === '/sse' || url.pathname === '/messages';
      if (request.url !== '/mcp' && request.url !== '/mcp-json' && url.pathname !== '/mcp-forgets' && !modern && !sse) return void response.writeHead(404).end();
      if (request.headers['x-test-token'] !== MCP_TEST_TOKEN) {
        log.unauthorized++;
        return void response.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      }
      const body = request.method === 'POST' ? await readBody(request) : undefined;
      for (const message of [body].flat() as { method?: string; params?: { name?: string; arguments?: unknown } }[]) {
        if (message?.method === 'tools/list') log.lists++;
        if (message?.method === 'tools/call') log.callSockets.push({ tool: message.params?.name ?? '', args: message.params?.arguments, socket: connections.of(request.socket) });
      }
      if (request.method === 'DELETE' && request.headers['mcp-session-id']) log.ended++;
      if (modern) return await serveModern(request, response, body, log);
      if (sse) return await serveSse(request, response, body, url, log, streams);
      // `/mcp-json`: a stateless server that answers every request as JSON rather than SSE.
      if (request.url === '/mcp-json') {
        const stateless = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
        await buildServer(log).connect(stateless);
        await stateless.handleRequest(request, response, body);
        return;
      }
      const id = request.headers['mcp-session-id'];
      const forgets = url.pathname === '/mcp-forgets';
      if (forgets && [body].flat().some((message) => (message as { method?: string })?.method === 'initialize')) log.forgetful.initializes++;
      if (forgets && typeof id === 'string' && forgotten.has(id)) {
        if (request.method === 'POST') log.forgetful.refused++;
        return void refuseSession(response, url.searchParams.get('answer'));
      }
      let transport = typeof id === 'string' ? sessions.get(id) : undefined;
      if (!transport) {
        const created = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (sessionId) => void sessions.set(sessionId, created),
        });
        created.onclose = () => {
          if (created.sessionId) sessions.delete(created.sessionId);
        };
        await buildServer(log).connect(created);
        transport = created;
      }
      await transport.handleRequest(request, response, body);
      const method = (body as { method?: string } | undefined)?.method;
      const forget = method === (url.searchParams.get('after') === 'list' ? 'tools/list' : 'notifications/initialized');
      if (forgets && request.method === 'POST' && forget && transport.sessionId) {
        forgotten.add(transport.sessionId);
        sessions.delete(transport.sessionId);
      }
    } catch (error) {
      if (!response.headersSent) response.writeHead(500).end(String(error));
    }
  });
  const connections = numberConnections(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}
