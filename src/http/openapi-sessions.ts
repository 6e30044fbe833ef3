/** The OpenAPI paths of a session: its history, branches and forks, summary, erasure and socket. */
import { forkRequestSchema } from '../api/branch-requests';
import { messageIdSchema } from '../api/message-ids';
import { messagesQuerySchema } from '../api/messages-query';
import { branchListSchema, branchViewSchema, forkedSessionSchema, messagesPageSchema, sessionViewSchema } from '../api/responses';
import { errors, json, queryParameters, schemaOf, sessionId, type Json } from './openapi-parts';

const leafId = { name: 'leafId', in: 'path', required: true, description: 'The last message of a branch.', schema: schemaOf(messageIdSchema, 'input') };

/** The session: its history, its summary, its erasure, its socket. */
export function sessionPaths(): Json {
  return {
    '/sessions/{id}/messages': {
      get: {
        operationId: 'getMessages',
        summary: "A branch of the session's history (the active one, or the one that ends at `leaf`), a page at a time",
        parameters: [sessionId, ...queryParameters(messagesQuerySchema())],
        responses: { '200': json(messagesPageSchema, 'A page of the branch, in order: each message with its id, parent and siblings.'), ...errors('400', '401', '404', '500') },
      },
    },
    '/sessions/{id}/branches': {
      get: {
        operationId: 'getBranches',
        summary: "The session's branches, one per leaf, oldest first",
        parameters: [sessionId],
        responses: { '200': json(branchListSchema, 'The branches; one is active.'), ...errors('400', '401', '404', '500') },
      },
    },
    '/sessions/{id}/branches/{leafId}/activate': {
      post: {
        operationId: 'activateBranch',
        summary: 'Make the branch that ends at leafId the active one',
        parameters: [sessionId, leafId],
        responses: { '200': json(branchViewSchema, 'The branch, now active.'), ...errors('401', '404', '409', '429', '500') },
      },
    },
    '/sessions/{id}/fork': {
      post: {
        operationId: 'forkSession',
        summary: 'A new session of the same user with a copy of the active branch',
        description: 'The copy ends at `upTo` (the rules of `parentId`; default: the last message a turn could continue from) and holds the compactions that hold on it, the title (with " (fork)") and the permission rules. An empty body forks all of it to a new id.',
        parameters: [sessionId],
        requestBody: { required: false, content: { 'application/json': { schema: schemaOf(forkRequestSchema, 'input') } } },
        responses: { '201': json(forkedSessionSchema, 'The new session.'), ...errors('400', '401', '404', '409', '413', '415', '429', '500') },
      },
    },
    '/sessions/{id}': {
      get: {
        operationId: 'getSession',
        summary: 'The session: title, counts, pending calls, usage, the running and last turn',
        parameters: [sessionId],
        responses: { '200': json(sessionViewSchema, 'The session.'), ...errors('400', '401', '404', '500') },
      },
      delete: {
        operationId: 'deleteSession',
        summary: 'Erase the session',
        parameters: [sessionId],
        responses: { '204': { description: 'Erased.' }, ...errors('400', '401', '404', '409', '500') },
      },
    },
    '/sessions/{id}/ws': {
      get: {
        operationId: 'openSocket',
        summary: 'The chat socket (docs/chat-socket.md): a WebSocket upgrade',
        description: 'Upgrade with `Upgrade: websocket`; the token may come as a `bearer.<jwt>` entry of Sec-WebSocket-Protocol (then `agent-chat` is selected). A refused upgrade closes with 4000 + the HTTP status.',
        parameters: [sessionId],
        responses: { '101': { description: 'Switching protocols: the socket is open.' }, ...errors('426') },
      },
    },
  };
}

