/**
 * MCP servers of the 2026-07-28 revision for the tests, built with the official SDK's v2
 * (`@modelcontextprotocol/server`, `createMcpHandler`): `/mcp-modern` speaks that revision only
 * (it refuses the handshake with `-32022`, naming it), `/mcp-dual` speaks it and the handshake's
 * revisions beside it, as the SDK serves by default. Tools: `echo`, and `sql`, whose `region` the
 * server asks to see in a header (`x-mcp-header: Region`) and refuses a call without. Each request's
 * path, method and `Mcp-Param-Region` header go to the log (`modern` in `GET /__log`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import type { McpLog } from './mcp-fixtures';

function buildServer(): McpServer {
  const server = new McpServer({ name: 'modern-kit', version: '2.0.0' });
  server.registerTool('echo', { description: 'Says the text back.', inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({
    content: [{ type: 'text', text: `echo: ${text}` }],
  }));
  server.registerTool(
    'sql',
    { description: 'Runs a query in a region.', inputSchema: z.object({ region: z.string().meta({ 'x-mcp-header': 'Region' }), query: z.string() }) },
    async ({ region, query }) => ({ content: [{ type: 'text', text: `${region}: ${query}` }] }),
  );
  return server;
}

const handlers = {
  '/mcp-modern': createMcpHandler(buildServer, { legacy: 'reject' }),
  '/mcp-dual': createMcpHandler(buildServer),
};

export const MODERN_PATHS = Object.keys(handlers);

/** Serves a request to one of the paths above, its body already read. */
export async function serveModern(request: IncomingMessage, response: ServerResponse, body: unknown, log: McpLog): Promise<void> {
  const path = (request.url ?? '').split('?')[0] as keyof typeof handlers;
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) if (typeof value === 'string') headers.set(name, value);
  const method = (body as { method?: string } | undefined)?.method;
  log.modern.push({ path, method: method ?? request.method ?? '', region: headers.get('mcp-param-region') });
  const init: RequestInit = { method: request.method, headers, ...(request.method === 'POST' ? { body: JSON.stringify(body) } : {}) };
  const answer = await handlers[path].fetch(new Request(`http://127.0.0.1${request.url}`, init));
  response.writeHead(answer.status, Object.fromEntries(answer.headers));
  response.end(Buffer.from(await answer.arrayBuffer()));
}
