/**
 * `GET /openapi.json`: the OpenAPI 3.1 document of every HTTP route of every door, made from the same
 * zod schemas the routes validate with and answer in (zod 4's JSON Schema output, draft 2020-12,
 * which OpenAPI 3.1 takes as it is). An SSE answer is described as the sequence of its events: each
 * item is an object `{event, id, data}`, one per `event:` name, with the schema of its `data:`.
 */
import { runAgentInputSchema } from '../api/agui-request';
import { harnessRequestSchema } from '../api/harness-request';
import { piStreamRequestSchema } from '../api/pi-stream-request';
import { acceptedTurnSchema, cancelledTurnSchema, errorBodySchema, turnBodySchema, turnEventSchemas } from '../api/responses';
import { turnRequestSchema } from '../api/turn-request';
import { turnsPageSchema } from '../api/background-responses';
import { followQuerySchema, idempotencyKeySchema, turnsQuerySchema } from '../api/turn-routes';
import { harnessEventSchemas } from '../protocol/harness-events';
import { errors, json, named, queryParameters, schemaOf, sessionId, sse, sseEvent, sseMedia, turnId, type Json } from './openapi-parts';
import { sessionPaths } from './openapi-sessions';
import { userPaths } from './openapi-users';
import { backgroundPaths } from './openapi-background';
import { agentPaths } from './openapi-agents';

const turnEvents = Object.fromEntries(Object.entries(turnEventSchemas).map(([name, schema]) => [name, schemaOf(schema, 'output')]));
const PI_EVENTS = ['agent_start', 'turn_start', 'message_start', 'message_update', 'message_end', 'tool_execution_start', 'tool_execution_end', 'turn_end', 'agent_end'];
const PI_PROXY_EVENTS = ['start', 'text_start', 'text_delta', 'text_end', 'thinking_start', 'thinking_delta', 'thinking_end', 'toolcall_start', 'toolcall_delta', 'toolcall_end', 'done', 'error'];
const AGUI_EVENTS = [
  'RUN_STARTED',
  'TEXT_MESSAGE_START',
  'TEXT_MESSAGE_CONTENT',
  'TEXT_MESSAGE_END',
  'REASONING_START',
  'REASONING_MESSAGE_START',
  'REASONING_MESSAGE_CONTENT',
  'REASONING_MESSAGE_END',
  'REASONING_END',
  'TOOL_CALL_START',
  'TOOL_CALL_ARGS',
  'TOOL_CALL_END',
  'TOOL_CALL_RESULT',
  'RUN_FINISHED',
  'RUN_ERROR',
];

const harnessEvent = { oneOf: Object.values(harnessEventSchemas).map((schema) => schemaOf(schema, 'output')) };

function buildDocument(): Json {
  return {
    openapi: '3.1.0',
    info: {
      title: 'edge-agent-turns',
      version: '1.0.0',
      description:
        'An agent-turn service on Cloudflare Workers: turns that stream (docs/turns-api.md), the pi and AG-UI doors, sessions in Durable Objects. Errors are `{"error": {"code", "message", "details"?}}` except on `/api/stream` (pi\'s `{"error": "<sentence>"}`).',
    },
    components: {
      schemas: { Error: schemaOf(errorBodySchema, 'output') },
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'HS256 JWTs signed with AUTH_SECRET; `sub` is the user. Without AUTH_SECRET, loopback requests need none.' },
      },
    },
    security: [{ bearer: [] }],
    paths: { ...turnPaths(), ...backgroundPaths(), ...sessionPaths(), ...userPaths(), ...doorPaths(), ...agentPaths(), ...servicePaths() },
  };
}

/** The turns API: start, list, follow, cancel. */
function turnPaths(): Json {
  return {
    '/sessions/{id}/turns': {
      post: {
        operationId: 'postTurn',
        summary: 'Run a turn',
        description:
          'Messages in (a user message, or the answers to the calls the session waits for); the turn out, as SSE (`delta`, `message`, `pi`) or one JSON body (`none`). `ifBusy` says what happens while another turn runs: `reject` (409 `session_busy`), `enqueue` (202, the turn waits; follow it at its events), `interrupt` (the running turn is cancelled, this one runs), `steer` (202, the user messages join the running turn). `parentId` continues from another message of the history on a new branch, which becomes active (edit, regenerate; `400 invalid_parent` for a message mid tool exchange).',
        parameters: [
          sessionId,
          { name: 'Idempotency-Key', in: 'header', required: false, description: 'A retry with the same key follows the turn the first started.', schema: schemaOf(idempotencyKeySchema, 'input') },
          { name: 'Prefer', in: 'header', required: false, description: '`respond-async` (RFC 7240): `202 {turnId, status}` at once, in any stream mode; the turn runs without its client (docs/background.md).', schema: { type: 'string' } },
        ],
        requestBody: { required: true, content: { 'application/json': { schema: schemaOf(turnRequestSchema(), 'input') } } },
        responses: {
          '200': {
            description:
              'The turn: JSON for `none`; SSE for `delta` and `message` (the events of the turns API (docs/turns-api.md), `x-sse-event`) and for `pi` (pi-agent-core\'s AgentEvent, `x-sse-event-pi`; `event:` is its type).',
            content: {
              'application/json': { schema: schemaOf(turnBodySchema, 'output') },
              'text/event-stream': sseMedia(turnEvents, {
                'x-sse-event-pi': sseEvent(named(PI_EVENTS, 'A pi-agent-core AgentEvent.')),
                'x-external-docs': { url: 'https://www.npmjs.com/package/@mariozechner/pi-agent-core' },
              }),
            },
          },
          '202': json(acceptedTurnSchema, 'Accepted while another turn runs: queued (with its place from 1), or steered into the running turn (its id).'),
          ...errors('400', '401', '409', '413', '415', '422', '429', '500'),
        },
      },
      get: {
        operationId: 'listTurns',
        summary: 'The session’s turns, newest first, a page at a time: each one’s state, model, times and how it stopped',
        parameters: [sessionId, ...queryParameters(turnsQuerySchema())],
        responses: { '200': json(turnsPageSchema, 'A page of turns.'), ...errors('400', '401', '404', '500') },
      },
    },
    '/sessions/{id}/turns/{turnId}/events': {
      get: {
        operationId: 'followTurn',
        summary: "A turn's events after a point, then live to its end",
        parameters: [
          sessionId,
          turnId,
          ...queryParameters(followQuerySchema()),
          { name: 'Last-Event-ID', in: 'header', required: false, description: 'The id of the last event received (wins over `after`).', schema: { type: 'string', pattern: '^\\d{1,9}$' } },
        ],
        responses: { '200': sse('The events, in the mode asked for (by default the turn\'s own).', turnEvents), ...errors('400', '401', '404', '410', '500') },
      },
    },
    '/sessions/{id}/turns/{turnId}/cancel': {
      post: {
        operationId: 'cancelTurn',
        summary: 'Stop the running turn; answers once it has stopped',
        parameters: [sessionId, turnId],
        responses: { '200': json(cancelledTurnSchema, 'The turn, stopped.'), ...errors('401', '404', '409', '429', '500') },
      },
    },
  };
}

/** The doors of existing clients: pi's model proxy, AG-UI, the Harness. */
function doorPaths(): Json {
  return {
    '/api/stream': {
      post: {
        operationId: 'piModelProxy',
        summary: "pi-agent-core's streamProxy endpoint: one model call of a MODELS model",
        requestBody: { required: true, content: { 'application/json': { schema: schemaOf(piStreamRequestSchema, 'input') } } },
        responses: {
          '200': sse('`data:` lines of pi\'s proxy events, ending with `done` or `error`.', named(PI_PROXY_EVENTS, "A pi-agent-core ProxyAssistantMessageEvent."), {
            url: 'https://www.npmjs.com/package/@mariozechner/pi-agent-core',
          }),
          default: {
            description: 'A failure before the stream: `{"error": "<sentence>"}`.',
            content: { 'application/json': { schema: { type: 'object', properties: { error: { type: 'string' } }, required: ['error'] } } },
          },
        },
      },
    },
    '/ag-ui': {
      post: {
        operationId: 'aguiRun',
        summary: "An AG-UI run (RunAgentInput in, AG-UI events out) on the session `threadId`",
        requestBody: { required: true, content: { 'application/json': { schema: schemaOf(runAgentInputSchema, 'input') } } },
        responses: {
          '200': sse("AG-UI's events (`@ag-ui/core`), RUN_STARTED first, RUN_FINISHED or RUN_ERROR last.", named(AGUI_EVENTS, 'An @ag-ui/core event.'), {
            url: 'https://www.npmjs.com/package/@ag-ui/core',
          }),
          ...errors('400', '401', '409', '413', '415', '429', '500'),
        },
      },
    },
    '/harness/chat': {
      post: {
        operationId: 'harnessChat',
        summary: 'A run in the Harness chat events (docs/harness.md): SSE `data:` lines or one JSON array',
        description:
          'The answer format follows `Accept`: `text/event-stream` gives one `data:<event>` line per event and no event names; anything else one JSON array, written as the events happen. Where AUTH_SECRET is set, `userId` must be the token\'s user (403).',
        requestBody: { required: true, content: { 'application/json': { schema: schemaOf(harnessRequestSchema, 'input') } } },
        responses: {
          '200': {
            description: 'The run, as the 31 AgentEvent types of the Harness protocol (docs/harness.md) section 5.',
            content: {
              'text/event-stream': { schema: { type: 'string', description: 'Each `data:` line is one item of x-sse-data.' }, 'x-sse-data': harnessEvent },
              'application/json': { schema: { type: 'array', items: harnessEvent } },
            },
          },
          ...errors('400', '401', '403', '409', '413', '415', '429', '500'),
        },
      },
    },
  };
}

/** The service itself: health, this document, the root. */
function servicePaths(): Json {
  return {
    '/healthz': {
      get: {
        operationId: 'health',
        summary: 'Liveness',
        security: [],
        responses: { '200': { description: 'Up.', content: { 'application/json': { schema: { type: 'object', properties: { ok: { const: true } }, required: ['ok'] } } } } },
      },
    },
    '/openapi.json': {
      get: { operationId: 'openapi', summary: 'This document', security: [], responses: { '200': { description: 'OpenAPI 3.1.', content: { 'application/json': { schema: { type: 'object' } } } } } },
    },
    '/': {
      get: { operationId: 'root', summary: 'Leads to the playground', security: [], responses: { '302': { description: 'To /playground/.' } } },
    },
  };
}

let document: Json | undefined;

/** Built once per isolate: the schemas do not change while it lives. */
export function openApiDocument(): Json {
  document ??= buildDocument();
  return document;
}
