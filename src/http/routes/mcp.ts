/**
 * `POST /mcp`: the agent as an MCP server (docs/mcp.md), stateless over Streamable HTTP
 * (`http/mcp-server.ts`), with the usual bearer auth. Its tools: `chat` (a turn, queued behind a
 * running one, told as progress notifications while it runs), `list_sessions`, `get_messages`,
 * `list_turns` and `answer_tool_call`. A door like the others: the turn is launched by the session's one launcher,
 * and its internal events are encoded here (`protocol/mcp-chat-encoder.ts`).
 */
import type { IRequest } from 'itty-router';
import { turnStatusSchema } from '../../api/turn-status';
import { sessionIdSchema, type InputMessage, type TurnRequest } from '../../api/turn-request';
import { pickModel, readConfig } from '../../config';
import type { Env } from '../../env';
import { ApiError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import * as z from '../../lib/zod';
import { createMcpChatEncoder } from '../../protocol/mcp-chat-encoder';
import { eventLines } from '../../session/event-lines';
import { admit } from '../../users/admission';
import { userObject, type Owner } from '../../users/owner';
import { authenticate } from '../auth';
import { serveMcp, type McpTool, type McpToolResult, type ToolCall } from '../mcp-server';
import { sessionStub } from '../session-stub';

export async function handleMcp(request: IRequest, env: Env, context: ExecutionContext): Promise<Response> {
  const owner = await authenticate(request, env);
  // Stateless: no stream of the server's own to open (GET) and no session to end (DELETE), as the
  // Streamable HTTP transport allows a server to say.
  if (request.method !== 'POST') {
    throw new ApiError(405, 'method_not_allowed', `${request.method} is not served here: this MCP server is stateless. Allowed: POST.`, { headers: { allow: 'POST' } });
  }
  return serveMcp(request as unknown as Request, {
    name: 'edge-agent-turns',
    version: '0.1.0',
    instructions: 'An agent with sessions: chat in one, list them, read one, answer what a turn waits for.',
    tools: tools(env, owner, context),
  });
}

/** The model of a turn: one of `MODELS` (docs/configuration.md); the deployment's default without it. */
const MODEL = z.withMeta(z.optional(z.string().check(z.maxLength(256))), { description: 'A model of the deployment\'s MODELS, as provider:model; its default without it.' });

/** A tool with its input's type checked against its schema. */
const tool = <Shape extends z.core.$ZodShape>(definition: McpTool<Shape>): McpTool<Shape> => definition;

function tools(env: Env, owner: Owner, context: ExecutionContext): McpTool<any>[] {
  return [
    tool({
      name: 'chat',
      description: 'Send a message to the agent, in a session of yours (a new one without sessionId). Returns its answer; a turn that waits for a permission or a client result lists those calls.',
      input: { message: z.string().check(z.minLength(1), z.maxLength(100_000)), sessionId: z.optional(sessionIdSchema), model: MODEL },
      run: ({ message, sessionId, model }, call) => runTurn({ env, owner, context }, { sessionId: sessionId ?? `mcp-${newId('s').slice(2, 18)}`, messages: [{ role: 'user', content: message }], model }, call),
    }),
    tool({
      name: 'answer_tool_call',
      description: 'Answer a call a turn waits for: a permission (granted, reason?) or a client tool’s result. The turn goes on, and its answer comes back as chat’s does.',
      input: { sessionId: sessionIdSchema, toolCallId: z.string(), granted: z.optional(z.boolean()), reason: z.optional(z.string().check(z.maxLength(2000))), result: z.optional(z.string()), model: MODEL },
      run: ({ sessionId, toolCallId, granted, reason, result, model }, call) => {
        const answer: InputMessage =
          result !== undefined
            ? { role: 'tool', toolCallId, content: result }
            : { role: 'tool_permission', toolCallId, granted: granted ?? false, ...(reason !== undefined ? { reason } : {}) };
        return runTurn({ env, owner, context }, { sessionId, messages: [answer], model }, call);
      },
    }),
    tool({
      name: 'list_sessions',
      description: 'Your sessions, the most recently changed first.',
      input: {},
      run: async () => {
        const page = await userObject(env, owner).sessions(100);
        return { content: [{ type: 'text', text: JSON.stringify(page.sessions) }], structuredContent: { sessions: page.sessions } };
      },
    }),
    tool({
      name: 'get_messages',
      description: 'The messages of a session of yours (its active branch).',
      input: { sessionId: sessionIdSchema },
      run: async ({ sessionId }) => {
        const page = await sessionStub(env, owner, sessionId).getMessages({ limit: 500 });
        if (!page.ok) return failure(page.body.error.message);
        return { content: [{ type: 'text', text: JSON.stringify(page.messages) }], structuredContent: { sessionId, messages: page.messages } };
      },
    }),
    tool({
      name: 'list_turns',
      description: 'The turns of a session of yours, the newest first (50): each one’s state, model, times and how it stopped, with the schedule that started it, if one did.',
      input: { sessionId: sessionIdSchema, status: z.optional(turnStatusSchema) },
      run: async ({ sessionId, status }) => {
        const page = await sessionStub(env, owner, sessionId).listTurns({ limit: 50, ...(status ? { state: status } : {}) });
        if (!page.ok) return failure(page.body.error.message);
        return { content: [{ type: 'text', text: JSON.stringify(page.turns) }], structuredContent: { sessionId, turns: page.turns } };
      },
    }),
  ];
}

/**
 * A turn of the MCP door: queued behind a running one, told as progress notifications, answered at
 * its end; cancelled if its caller leaves (`call.left`, the 2026-07-28 revision's cancel).
 */
async function runTurn(on: { env: Env; owner: Owner; context: ExecutionContext }, turn: { sessionId: string; messages: InputMessage[]; model: string | undefined }, call: ToolCall): Promise<McpToolResult> {
  const { env, owner, context } = on;
  const { sessionId, messages } = turn;
  try {
    const model = pickModel(readConfig(env), turn.model);
    const today = await admit(env, owner, { callsModel: true });
    const request: TurnRequest = { messages, stream: 'none', ifBusy: 'enqueue' };
    const stub = sessionStub(env, owner, sessionId);
    const started = await stub.startEventsRun({ sessionId, request, model, ...(today ? { today } : {}) });
    if (!started.ok) return failure(started.body.error.message, started.body.error.code);
    // Kept alive past the request, which the leaving ends. A turn that stopped meanwhile answers 409.
    const cancel = () => context.waitUntil(stub.cancelTurn(started.turnId).catch(() => {}));
    if (call.left?.aborted) cancel();
    else call.left?.addEventListener('abort', cancel, { once: true });
    const encoder = createMcpChatEncoder(sessionId);
    let answer: McpToolResult | undefined;
    try {
      // Read to its end, never left half read: the stream comes from the session's object.
      for await (const event of eventLines(started.body)) {
        for (const item of encoder.encode(event)) {
          if (item.kind === 'result') answer = { content: [{ type: 'text', text: item.text }], structuredContent: item.structured, ...(item.isError ? { isError: true } : {}) };
          else call.progress(item.message);
        }
      }
    } finally {
      call.left?.removeEventListener('abort', cancel);
    }
    return answer ?? failure('The turn ended without its last event.');
  } catch (error) {
    if (error instanceof ApiError) return failure(error.message, error.code);
    throw error;
  }
}

function failure(message: string, code?: string): McpToolResult {
  return { content: [{ type: 'text', text: message }], isError: true, ...(code ? { structuredContent: { error: { code, message } } } : {}) };
}
