/**
 * `POST /mcp`: the agent as an MCP server (docs/mcp.md), served by the official SDK's Streamable HTTP
 * transport, one stateless server per request, with the usual bearer auth. Its tools: `chat` (a turn,
 * queued behind a running one, told as progress notifications while it runs), `list_sessions`,
 * `get_messages` and `answer_tool_call`. A door like the others: the turn is launched by the session's
 * one launcher, and its internal events are encoded here (`protocol/mcp-chat-encoder.ts`).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { IRequest } from 'itty-router';
import type { InputMessage, TurnRequest } from '../../api/turn-request';
import { readConfig } from '../../config';
import type { Env } from '../../env';
import { ApiError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import * as z from '../../lib/zod';
import { createMcpChatEncoder } from '../../protocol/mcp-chat-encoder';
import { eventLines } from '../../session/event-lines';
import { admit } from '../../users/admission';
import { userObject, type Owner } from '../../users/owner';
import { authenticate } from '../auth';
import { parseSessionId, sessionStub } from '../session-stub';

type ToolExtra = { _meta?: { progressToken?: string | number }; sendNotification: (notification: { method: 'notifications/progress'; params: { progressToken: string | number; progress: number; message?: string } }) => Promise<void> };
type ToolResult = { content: { type: 'text'; text: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };

export async function handleMcp(request: IRequest, env: Env): Promise<Response> {
  const owner = await authenticate(request, env);
  // Stateless: no stream of the server's own to open (GET) and no session to end (DELETE), as the
  // Streamable HTTP transport allows a server to say.
  if (request.method !== 'POST') {
    throw new ApiError(405, 'method_not_allowed', `${request.method} is not served here: this MCP server is stateless. Allowed: POST.`, { headers: { allow: 'POST' } });
  }
  const server = new McpServer({ name: 'edge-agent-turns', version: '0.1.0' }, { instructions: 'An agent with sessions: chat in one, list them, read one, answer what a turn waits for.' });
  registerTools(server, env, owner);
  // Stateless: each request has its own server and transport; sessions are the agent's own.
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await server.connect(transport);
  return transport.handleRequest(request as unknown as Request);
}

function registerTools(server: McpServer, env: Env, owner: Owner): void {
  server.registerTool(
    'chat',
    {
      description: 'Send a message to the agent, in a session of yours (a new one without sessionId). Returns its answer; a turn that waits for a permission or a client result lists those calls.',
      inputSchema: { message: z.string().min(1).max(100_000), sessionId: z.string().optional() },
    },
    async ({ message, sessionId }, extra) => runTurn(env, owner, sessionId ?? `mcp-${newId('s').slice(2, 18)}`, [{ role: 'user', content: message }], extra as unknown as ToolExtra),
  );
  server.registerTool(
    'answer_tool_call',
    {
      description: 'Answer a call a turn waits for: a permission (granted, reason?) or a client tool’s result. The turn goes on, and its answer comes back as chat’s does.',
      inputSchema: { sessionId: z.string(), toolCallId: z.string(), granted: z.boolean().optional(), reason: z.string().max(2000).optional(), result: z.string().optional() },
    },
    async ({ sessionId, toolCallId, granted, reason, result }, extra) => {
      const answer: InputMessage =
        result !== undefined
          ? { role: 'tool', toolCallId, content: result }
          : { role: 'tool_permission', toolCallId, granted: granted ?? false, ...(reason !== undefined ? { reason } : {}) };
      return runTurn(env, owner, sessionId, [answer], extra as unknown as ToolExtra);
    },
  );
  server.registerTool('list_sessions', { description: 'Your sessions, the most recently changed first.', inputSchema: {} }, async () => {
    const page = await userObject(env, owner).sessions(100);
    return { content: [{ type: 'text', text: JSON.stringify(page.sessions) }], structuredContent: { sessions: page.sessions } };
  });
  server.registerTool('get_messages', { description: 'The messages of a session of yours (its active branch).', inputSchema: { sessionId: z.string() } }, async ({ sessionId }) => {
    const id = parseSessionId(sessionId);
    const page = await sessionStub(env, owner, id).getMessages({ limit: 500 });
    if (!page.ok) return failure(page.body.error.message);
    return { content: [{ type: 'text', text: JSON.stringify(page.messages) }], structuredContent: { sessionId: id, messages: page.messages } };
  });
}

/** A turn of the MCP door: queued behind a running one, told as progress notifications, answered at its end. */
async function runTurn(env: Env, owner: Owner, rawSessionId: string, messages: InputMessage[], extra: ToolExtra): Promise<ToolResult> {
  let sessionId: string;
  try {
    sessionId = parseSessionId(rawSessionId);
    const today = await admit(env, owner, { callsModel: true });
    const request: TurnRequest = { messages, stream: 'none', ifBusy: 'enqueue' };
    const started = await sessionStub(env, owner, sessionId).startEventsRun({ sessionId, request, model: readConfig(env).defaultModel, ...(today ? { today } : {}) });
    if (!started.ok) return failure(started.body.error.message, started.body.error.code);
    const encoder = createMcpChatEncoder(sessionId);
    const token = extra._meta?.progressToken;
    let progress = 0;
    let answer: ToolResult | undefined;
    // Read to its end, never left half read: the stream comes from the session's object.
    for await (const event of eventLines(started.body)) {
      for (const item of encoder.encode(event)) {
        if (item.kind === 'result') answer = { content: [{ type: 'text', text: item.text }], structuredContent: item.structured, ...(item.isError ? { isError: true } : {}) };
        else if (token !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: ++progress, message: item.message } }).catch(() => {});
      }
    }
    return answer ?? failure('The turn ended without its last event.');
  } catch (error) {
    if (error instanceof ApiError) return failure(error.message, error.code);
    throw error;
  }
}

function failure(message: string, code?: string): ToolResult {
  return { content: [{ type: 'text', text: message }], isError: true, ...(code ? { structuredContent: { error: { code, message } } } : {}) };
}
