/**
 * A real MCP server for the tests, built with `@modelcontextprotocol/sdk` (`McpServer` over its
 * Streamable HTTP server transport, with sessions), on 127.0.0.1. Its tools: `echo` (text), `chart`
 * (an image), `fail` (an error result), `crash` (a thrown error), `slow` (waits, and notices a
 * cancel). It asks for the header `x-test-token: secret-123`, and keeps a log at `GET /__log`:
 * how many times its tools were listed, each call (with the number of the connection it came on),
 * the calls that were cancelled, and the sessions ended by `DELETE`; `GET /__sockets` lists the
 * numbers of the connections still open (`connections.ts`). `/mcp-json` is the same server without sessions,
 * answering in JSON, not SSE.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { numberConnections } from './connections';
import { CHART_PNG, MCP_TEST_TOKEN, type McpLog } from './mcp-fixtures';

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

export async function startMcpServer(): Promise<{ server: Server; url: string }> {
  const log: McpLog = { lists: 0, calls: [], callSockets: [], cancelled: [], unauthorized: 0, ended: 0 };
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const server = createServer(async (request, response) => {
    try {
      if (request.url === '/__log') {
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(log));
        return;
      }
      if (connections.served(request, response)) return;
      if (request.url !== '/mcp' && request.url !== '/mcp-json') return void response.writeHead(404).end();
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
      // `/mcp-json`: a stateless server that answers every request as JSON rather than SSE.
      if (request.url === '/mcp-json') {
        const stateless = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
        await buildServer(log).connect(stateless);
        await stateless.handleRequest(request, response, body);
        return;
      }
      const id = request.headers['mcp-session-id'];
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
    } catch (error) {
      if (!response.headersSent) response.writeHead(500).end(String(error));
    }
  });
  const connections = numberConnections(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}
