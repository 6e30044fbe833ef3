/** The OpenAPI paths of the doors for other programs: A2A (docs/a2a.md) and MCP (docs/mcp.md). */
import { errors, type Json } from './openapi-parts';

const jsonRpc = { type: 'object', properties: { jsonrpc: { const: '2.0' }, id: {}, method: { type: 'string' }, params: { type: 'object' } }, required: ['jsonrpc', 'method'] };

export function agentPaths(): Json {
  return {
    '/.well-known/agent-card.json': {
      get: {
        operationId: 'agentCard',
        summary: 'The A2A agent card: the JSON-RPC endpoint, streaming, the bearer scheme where auth is on, the chat skill',
        security: [],
        responses: { '200': { description: 'The card: A2A v1.0\'s for `A2A-Version: 1.0`, else v0.3\'s with the v1.0 interfaces beside it.', content: { 'application/json': { schema: { type: 'object' } } } } },
      },
    },
    '/.well-known/agent.json': {
      get: {
        operationId: 'agentCardBefore03',
        summary: 'The same card, where the clients of A2A before v0.3 look for it',
        security: [],
        responses: { '200': { description: 'The card, as at /.well-known/agent-card.json.', content: { 'application/json': { schema: { type: 'object' } } } } },
      },
    },
    '/a2a': {
      post: {
        operationId: 'a2a',
        summary: 'A2A over JSON-RPC, v1.0 (SendMessage, SendStreamingMessage, GetTask, CancelTask, SubscribeToTask) and v0.3 (message/send, message/stream, tasks/get, tasks/cancel, tasks/resubscribe), by A2A-Version',
        description: 'The context is the session, a task is a turn (its id `<turnId>:<sessionId>`). The streaming methods answer SSE, one JSON-RPC response an event. A turn that waits for a permission or a client result is `TASK_STATE_INPUT_REQUIRED`, answered in the same task with data parts (docs/a2a.md).',
        requestBody: { required: true, content: { 'application/json': { schema: jsonRpc } } },
        responses: {
          '200': { description: 'A JSON-RPC response, or for the streaming methods a stream of them.', content: { 'application/json': { schema: { type: 'object' } }, 'text/event-stream': { schema: { type: 'string' } } } },
          ...errors('401', '405', '500'),
        },
      },
    },
    '/mcp': {
      post: {
        operationId: 'mcp',
        summary: 'The agent as an MCP server (Streamable HTTP, stateless): tools chat, answer_tool_call, list_sessions, get_messages, list_turns',
        description: 'Served by the official MCP SDK transport; `chat` sends progress notifications while its turn runs (docs/mcp.md).',
        requestBody: { required: true, content: { 'application/json': { schema: jsonRpc } } },
        responses: {
          '200': { description: 'A JSON-RPC response, as JSON or SSE.', content: { 'application/json': { schema: { type: 'object' } }, 'text/event-stream': { schema: { type: 'string' } } } },
          ...errors('401', '500'),
        },
      },
      get: { operationId: 'mcpStream', summary: 'Not served: the server is stateless (405).', responses: errors('401', '405') },
      delete: { operationId: 'mcpEnd', summary: 'Not served: the server is stateless (405).', responses: errors('401', '405') },
    },
  };
}
