/**
 * MCP servers as server tools, through the session's MCP client (`mcp-client.ts`, Streamable HTTP).
 * Each server's tool list is kept for a while (per session: one toolbox per session object), no
 * longer than the server says it stays fresh; a turn connects to a server when it first needs it
 * and closes its connections when it ends, so that no stream stays open while the session sleeps. Every failure (a server down, an MCP error, a
 * timeout) becomes a tool error the model reads, never a failed turn; a server whose list cannot be
 * read offers no tools until it can.
 */
import * as z from '../../lib/zod';
import { ToolError, type ServerTool } from '../types';
import { McpClient } from './mcp-client';
import type { McpServerConfig } from './mcp-config';
import { mcpToolName } from './mcp-names';
import { paramHeadersOf, paramHeaderValues, type ParamHeader } from './mcp-param-headers';
import { toolResultFromMcp } from './mcp-result';

export type McpSettings = {
  servers: McpServerConfig[];
  /** How long a server's tool list is kept. */
  listTtlMs: number;
  /** The longest wait to connect and list a server's tools. */
  listTimeoutMs: number;
  /** The longest MCP call (the tool phase's own timeout is the same). */
  callTimeoutMs: number;
};

/** The most tools read from one server, and the most pages of its list. */
const MAX_TOOLS = 1000;
const MAX_PAGES = 100;

/** A failed list is tried again after this long (or the list's own time to live, if shorter). */
const FAILED_LIST_TTL_MS = 30_000;

type ListedTool = { name: string; description: string; inputSchema: Record<string, unknown>; paramHeaders: ParamHeader[] };
/** A server's list as last read: kept `ttl` ms from `at`. */
type Listing = { at: number; ttl: number; ok: true; tools: ListedTool[] } | { at: number; ttl: number; ok: false; error: string };

export type TurnTools = { tools: ServerTool[]; close(): Promise<void> };

const anyInput = z.record(z.string(), z.unknown());

export class McpToolbox {
  private readonly lists = new Map<string, Listing>();

  constructor(
    private readonly settings: McpSettings,
    private readonly fetcher: typeof fetch = (input, init) => fetch(input, init),
    private readonly now: () => number = Date.now,
  ) {}

  /** The MCP tools for one turn, from the kept lists or listed again; `close()` when the turn ends. */
  async forTurn(): Promise<TurnTools> {
    const connections = new Connections(this.fetcher, this.settings);
    const listings = await Promise.all(this.settings.servers.map((server) => this.listing(server, connections)));
    const tools: ServerTool[] = [];
    const taken = new Set<string>();
    for (const [index, server] of this.settings.servers.entries()) {
      const listing = listings[index]!;
      if (!listing.ok) continue;
      for (const tool of listing.tools) {
        const name = mcpToolName(server.name, tool.name);
        if (taken.has(name)) continue;
        taken.add(name);
        tools.push(this.tool(server, tool, name, connections));
      }
    }
    return { tools, close: () => connections.closeAll() };
  }

  private async listing(server: McpServerConfig, connections: Connections): Promise<Listing> {
    const kept = this.lists.get(server.name);
    if (kept && this.now() - kept.at < kept.ttl) return kept;
    let listing: Listing;
    // A server of the 2026-07-28 revision says how long its list stays fresh: kept no longer than
    // that (the shortest of its pages'), nor than MCP_LIST_TTL_SECONDS.
    let ttl = this.settings.listTtlMs;
    try {
      const client = await connections.get(server);
      const tools: ListedTool[] = [];
      // A server that hands back a cursor it gave before, or pages without end, is read no further.
      const cursors = new Set<string>();
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await client.listTools(cursor, this.settings.listTimeoutMs);
        pages++;
        if (page.ttlMs !== undefined) ttl = Math.min(ttl, page.ttlMs);
        for (const tool of page.tools) {
          const headers = paramHeadersOf(tool.inputSchema);
          if ('invalid' in headers) console.warn(`MCP server "${server.name}": its tool ${tool.name} is left out: ${headers.invalid}`);
          else tools.push({ name: tool.name, description: tool.description ?? tool.title ?? '', inputSchema: tool.inputSchema, paramHeaders: headers.headers });
        }
        if (cursor !== undefined) cursors.add(cursor);
        cursor = page.nextCursor ?? undefined;
      } while (cursor !== undefined && cursor !== '' && !cursors.has(cursor) && pages < MAX_PAGES && tools.length < MAX_TOOLS);
      listing = { at: this.now(), ttl, ok: true, tools };
    } catch (error) {
      console.warn(`MCP server "${server.name}": its tools could not be listed`, describe(error));
      listing = { at: this.now(), ttl: Math.min(FAILED_LIST_TTL_MS, this.settings.listTtlMs), ok: false, error: describe(error) };
    }
    this.lists.set(server.name, listing);
    return listing;
  }

  private tool(server: McpServerConfig, listed: ListedTool, name: string, connections: Connections): ServerTool<Record<string, unknown>> {
    return {
      name,
      description: listed.description || `${listed.name}, from the MCP server "${server.name}".`,
      trust: server.trustOf(listed.name) === 'trusted',
      remote: true,
      inputSchema: anyInput,
      parameters: { type: 'object', ...listed.inputSchema },
      execute: async (input, context) => {
        let client: McpClient;
        try {
          client = await connections.get(server);
        } catch (error) {
          throw new ToolError(`The MCP server "${server.name}" could not be reached: ${describe(error)}`);
        }
        try {
          const paramHeaders = paramHeaderValues(listed.paramHeaders, input);
          return toolResultFromMcp(await client.callTool(listed.name, input, { signal: context.signal, timeoutMs: this.settings.callTimeoutMs, paramHeaders }));
        } catch (error) {
          if (error instanceof ToolError) throw error;
          throw new ToolError(`The MCP tool ${listed.name} on "${server.name}" failed: ${describe(error)}`);
        }
      },
    };
  }
}

/** One turn's connections: one client per server, made when first needed, all closed at the end. */
class Connections {
  private readonly clients = new Map<string, Promise<McpClient>>();

  constructor(
    private readonly fetcher: typeof fetch,
    private readonly settings: McpSettings,
  ) {}

  get(server: McpServerConfig): Promise<McpClient> {
    let client = this.clients.get(server.name);
    if (!client) {
      client = this.connect(server);
      this.clients.set(server.name, client);
    }
    return client;
  }

  async closeAll(): Promise<void> {
    const clients = [...this.clients.values()];
    this.clients.clear();
    await Promise.all(clients.map((client) => client.then((connected) => connected.close()).catch(() => undefined)));
  }

  private async connect(server: McpServerConfig): Promise<McpClient> {
    const client = new McpClient(server.url, server.headers, this.fetcher);
    await client.connect(this.settings.listTimeoutMs);
    return client;
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
