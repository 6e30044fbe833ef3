/**
 * The A2A door's JSON-RPC endpoint (docs/a2a.md; its card is `../a2a-card.ts`), `POST /a2a`, as
 * `@a2a-js/sdk` 1.x speaks A2A v1.0 (`SendMessage`, `SendStreamingMessage`, `GetTask`, `ListTasks`
 * (`../a2a-list.ts`), `CancelTask`, `SubscribeToTask`) and, for the clients of the version before,
 * v0.3 (`message/send` and the rest: `../a2a-versions.ts`). The context is the session, a task is a
 * turn; its events are encoded here (`protocol/a2a-encoder.ts`, then `protocol/a2a-v03.ts` for
 * v0.3), the turn launched by the session's one launcher. A task's id names its turn and its
 * session (`<turnId>:<sessionId>`), since A2A's get, cancel and subscribe name only the task; what a
 * task is apart from its turn is `../a2a-tasks.ts`.
 */
import type { IRequest } from 'itty-router';
import { RPC_ERRORS, RpcError, rpcError, rpcRequestSchema } from '../../api/json-rpc';
import { LIMITS } from '../../api/limits';
import { checkToolNames } from '../../api/tool-names';
import { isUserMessage } from '../../api/content';
import { clientToolSchema, sessionIdSchema, type TurnRequest } from '../../api/turn-request';
import { BUILT_IN_TOOL_NAMES } from '../../tools/built-in-names';
import { pickModel, readConfig } from '../../config';
import type { Env } from '../../env';
import { ApiError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { TOO_DEEP_MESSAGE } from '../../lib/json-depth';
import { quoted } from '../../lib/quoted';
import * as z from '../../lib/zod';
import { createA2aEncoder, type A2aStreamItem, type A2aTask } from '../../protocol/a2a-encoder';
import { v03StreamItem, v03Task } from '../../protocol/a2a-v03';
import { eventLines } from '../../session/event-lines';
import { admit } from '../../users/admission';
import type { Owner } from '../../users/owner';
import { listTasks } from '../a2a-list';
import { A2A_ERRORS, historyLength, parseTask, storedTask, taskRef, taskState, trim, unfinishedTask, type TaskRef } from '../a2a-tasks';
import { messagesOf, partSchema } from '../a2a-parts';
import { operationOf, type A2aVersion } from '../a2a-versions';
import { authenticate } from '../auth';
import { encodingRefusal, MAX_BODY_BYTES, readBoundedJson } from '../read-json-body';
import { sessionStub } from '../session-stub';

const messageSchema = z.looseObject({ messageId: z.optional(z.string()), contextId: z.optional(z.string()), taskId: z.optional(z.string()), role: z.optional(z.string()), parts: z.array(partSchema).check(z.minLength(1)) });
/** JSON-RPC's request, with the id A2A's clients may leave out or send as null (answered with null). */
const rpcSchema = z.extend(rpcRequestSchema, { id: z.optional(z.union([z.string(), z.number(), z.null()])) });

const { TASK_NOT_FOUND, TASK_NOT_CANCELABLE, PUSH_NOTIFICATION_NOT_SUPPORTED, UNSUPPORTED_OPERATION, CONTENT_TYPE_NOT_SUPPORTED } = A2A_ERRORS;
const INVALID_PARAMS = RPC_ERRORS.invalidParams;

export async function postA2a(request: IRequest, env: Env): Promise<Response> {
  const owner = await authenticate(request, env);
  // As A2A's own server: a body of another media type is refused unread; one that names none is read as JSON.
  const type = request.headers.get('content-type');
  if (type !== null && type.split(';', 1)[0]!.trim().toLowerCase() !== 'application/json') {
    return Response.json(rpcError(null, CONTENT_TYPE_NOT_SUPPORTED, `Unsupported Content-Type "${type}"; expected application/json.`));
  }
  const body = await readRpcBody(request);
  if (body instanceof Response) return body;
  const parsed = rpcSchema.safeParse(body.json);
  if (!parsed.success) return Response.json(rpcError(null, RPC_ERRORS.invalidRequest, 'Not a JSON-RPC 2.0 request.'));
  const { id = null, method, params = {} } = parsed.data;
  try {
    // Either version, in its own words: the v1.0 encoder's task and items, or their v0.3 shapes.
    const { version, operation } = operationOf(request.headers.get('a2a-version'), method);
    const legacy = version === '0.3';
    const item = (emit: (item: unknown) => void): Emit => (legacy ? (value) => emit(v03StreamItem(value)) : emit);
    // A task answered has at most the history `historyLength` asks for (SendMessage's configuration's, GetTask's, ListTasks'), checked before anything runs.
    const asked = operation === 'send' ? (params.configuration as Record<string, unknown> | undefined)?.historyLength : operation === 'get' || operation === 'list' ? params.historyLength : undefined;
    const length = historyLength(asked, operation === 'send' ? 'configuration.' : '');
    const task = (value: A2aTask) => (legacy ? v03Task(trim(value, length)) : trim(value, length));
    switch (operation) {
      case 'send': {
        await continuable(env, owner, params);
        const sent = await send(env, owner, params, undefined, immediately(params, version));
        return rpc(id, { result: legacy ? task(sent) : { task: task(sent) } });
      }
      case 'stream':
        // Refused before the stream opens, as a plain JSON-RPC error.
        await continuable(env, owner, params);
        return stream(id, (emit) => send(env, owner, params, item(emit), false));
      case 'get':
        return rpc(id, { result: task(await getTask(env, owner, taskRef(params))) });
      case 'list':
        return rpc(id, { result: await listTasks(env, owner, params, (listed) => listedTask(env, owner, listed).catch(() => undefined), (value) => trim(value, length)) });
      case 'cancel':
        return rpc(id, { result: task(await cancelTask(env, owner, taskRef(params))) });
      case 'subscribe': {
        const ref = taskRef(params);
        await notEnded(env, owner, ref, 'has nothing more to stream: GetTask answers it');
        return stream(id, (emit) => follow(env, owner, ref, item(emit)));
      }
      case 'push':
        throw new RpcError(PUSH_NOTIFICATION_NOT_SUPPORTED, 'Push notifications are not supported: follow a task with its stream, or get it (docs/a2a.md).');
      case 'extended-card':
        // As A2A's own server answers an agent whose card declares no extended card.
        throw new RpcError(UNSUPPORTED_OPERATION, 'This agent has no extended card: its card (/.well-known/agent-card.json) is all there is.');
      default:
        return Response.json(rpcError(id, RPC_ERRORS.methodNotFound, `This agent does not serve ${quoted(method)}${request.headers.has('a2a-version') ? ` in A2A ${version}` : ''}.`));
    }
  } catch (error) {
    if (error instanceof RpcError) return Response.json(rpcError(id, error.code, error.message));
    if (error instanceof ApiError) return Response.json(rpcError(id, error.status === 404 ? TASK_NOT_FOUND : INVALID_PARAMS, error.message, { code: error.code }));
    throw error;
  }
}

type Emit = (item: A2aStreamItem) => void;

/**
 * A message: its text and images a user message, its data parts answers to the calls the task waits
 * for (`a2a-parts.ts`); the turn runs (queued behind another). `immediately`: the task is answered as it starts, not as it
 * stops, and the turn runs without a client, as a background turn does (docs/background.md).
 */
async function send(env: Env, owner: Owner, params: Record<string, unknown>, emit: Emit | undefined, immediately: boolean): Promise<A2aTask> {
  const { sessionId, request, model } = readSend(env, params);
  const today = await admit(env, owner, { callsModel: true });
  const stub = sessionStub(env, owner, sessionId);
  if (immediately) {
    const started = await stub.startTurn({ sessionId, request, model, background: true, ...(today ? { today } : {}) });
    if (!started.ok) throw new RpcError(INVALID_PARAMS, started.body.error.message);
    if (started.kind !== 'accepted') throw new RpcError(INVALID_PARAMS, 'The turn did not start.');
    const asked = request.messages.filter(isUserMessage);
    return unfinishedTask(`${started.body.turnId}:${sessionId}`, sessionId, started.body.status === 'queued', asked);
  }
  const started = await stub.startEventsRun({ sessionId, request, model, ...(today ? { today } : {}) });
  if (!started.ok) throw new RpcError(INVALID_PARAMS, started.body.error.message);
  return encodeEvents(started.body, sessionId, emit);
}

/**
 * A message for a task (`message.taskId`) goes on in it only while the task can take one (one that
 * waits for input takes its answers); a message for a task that ended is refused, as A2A has it.
 */
async function continuable(env: Env, owner: Owner, params: Record<string, unknown>): Promise<void> {
  const taskId = (params.message as { taskId?: unknown } | undefined)?.taskId;
  if (typeof taskId === 'string') await notEnded(env, owner, { taskId, ...parseTask(taskId) }, 'takes no more messages: send one in its context (its contextId) to go on');
}

/** A task that ended (completed, failed, canceled: A2A's terminal states) is `UnsupportedOperationError` for `what`. */
async function notEnded(env: Env, owner: Owner, ref: TaskRef, what: string): Promise<void> {
  const view = await sessionStub(env, owner, ref.sessionId).getTurn(ref.turnId, 'brief');
  if (!view.ok) throw new RpcError(TASK_NOT_FOUND, `No task ${quoted(ref.taskId)}.`);
  const state = taskState(view.turn);
  if (state === 'TASK_STATE_COMPLETED' || state === 'TASK_STATE_FAILED' || state === 'TASK_STATE_CANCELED') {
    throw new RpcError(UNSUPPORTED_OPERATION, `Task ${quoted(ref.taskId)} has ended (${state}) and ${what}.`);
  }
}

/** Whether a send asks for its task at once: v1.0's `returnImmediately`, v0.3's `blocking: false` (each defaults to waiting). */
function immediately(params: Record<string, unknown>, version: A2aVersion): boolean {
  const configuration = params.configuration;
  if (typeof configuration !== 'object' || configuration === null) return false;
  return version === '1.0' ? (configuration as { returnImmediately?: unknown }).returnImmediately === true : (configuration as { blocking?: unknown }).blocking === false;
}

/** The turn a message asks for, checked before anything runs: its session, its messages, its model and tools. */
function readSend(env: Env, params: Record<string, unknown>): { sessionId: string; request: TurnRequest; model: string } {
  const message = messageSchema.safeParse(params.message);
  if (!message.success) throw new RpcError(INVALID_PARAMS, 'params.message must be a message with at least one part: text, an image file, or data.');
  const { contextId, taskId, parts } = message.data;
  // The context is the session: a context id the turns API could not name would make a session no other door reaches.
  const context = contextId === undefined ? undefined : sessionIdSchema.safeParse(contextId);
  if (context?.error) throw new RpcError(INVALID_PARAMS, `params.message.contextId is not a session id. ${context.error.issues[0]?.message}`);
  const taskSession = taskId ? parseTask(taskId).sessionId : undefined;
  if (taskSession !== undefined && contextId !== undefined && contextId !== taskSession) {
    throw new RpcError(INVALID_PARAMS, `params.message.contextId ${quoted(contextId)} is not the context of task ${quoted(taskId!)} (${quoted(taskSession)}).`);
  }
  const sessionId = taskSession ?? contextId ?? `a2a-${newId('s').slice(2, 18)}`;
  const messages = messagesOf(parts);
  // A model of MODELS may be asked for in the request's metadata (or the message's): `{"model": "provider:model"}`.
  const metadata = { ...(params.metadata as Record<string, unknown> | undefined), ...(message.data.metadata as Record<string, unknown> | undefined) };
  const model = pickModel(readConfig(env), typeof metadata.model === 'string' ? metadata.model : undefined);
  // Tools the calling agent runs itself (client tools) come in the metadata too: `{"tools": [{name, description?, parameters?}]}`.
  const tools = z.optional(z.array(clientToolSchema()).check(z.maxLength(LIMITS.toolsPerRequest))).safeParse(metadata.tools);
  if (!tools.success) throw new RpcError(INVALID_PARAMS, 'metadata.tools must be a list of tools: {"name", "description"?, "parameters"?}.');
  checkToolNames(tools.data ?? [], BUILT_IN_TOOL_NAMES);
  return { sessionId, request: { messages, stream: 'none', ifBusy: 'enqueue', ...(tools.data ? { tools: tools.data } : {}) }, model };
}

/** The task of a turn's internal events, each streamed as it is encoded. */
async function encodeEvents(body: ReadableStream<Uint8Array>, sessionId: string, emit: Emit | undefined): Promise<A2aTask> {
  let encoder: ReturnType<typeof createA2aEncoder> | undefined;
  // Read to its end, never left half read: the stream comes from the session's object.
  for await (const event of eventLines(body)) {
    if (event.type === 'turn-start') encoder = createA2aEncoder({ taskId: `${event.turnId}:${sessionId}`, contextId: sessionId });
    for (const item of encoder?.encode(event) ?? []) emit?.(item);
  }
  if (!encoder) throw new RpcError(INVALID_PARAMS, 'The turn did not start.');
  return encoder.task();
}

async function getTask(env: Env, owner: Owner, ref: TaskRef): Promise<A2aTask> {
  const stub = sessionStub(env, owner, ref.sessionId);
  // Its state from its row: its events are read once, below (the full view reads them too).
  const view = await stub.getTurn(ref.turnId, 'brief');
  if (!view.ok) throw new RpcError(TASK_NOT_FOUND, `No task ${quoted(ref.taskId)}.`);
  if (view.turn.status === 'queued') return (await queuedTask(env, owner, ref)) ?? unfinishedTask(ref.taskId, ref.sessionId, true, []);
  return (await readTask(env, owner, ref)) ?? storedTask(ref, view.turn, []);
}

/** A listed task read as `GetTask` reads it: its state is known from the listing, so its row is not read again. */
function listedTask(env: Env, owner: Owner, listed: A2aTask): Promise<A2aTask | undefined> {
  const ref = { taskId: listed.id, ...parseTask(listed.id) };
  return listed.status.state === 'TASK_STATE_SUBMITTED' ? queuedTask(env, owner, ref) : readTask(env, owner, ref);
}

/** A task whose turn waits in the queue: submitted, with the user's messages it brings (one that started meanwhile is read as it runs). */
async function queuedTask(env: Env, owner: Owner, ref: TaskRef): Promise<A2aTask | undefined> {
  const read = await sessionStub(env, owner, ref.sessionId).getTurn(ref.turnId, 'asked');
  if (!read.ok) return undefined;
  return read.turn.status === 'queued' ? unfinishedTask(ref.taskId, ref.sessionId, true, read.asked ?? []) : readTask(env, owner, ref);
}

/**
 * A task whose turn runs or ended: its event log so far, read again through the encoder (what a
 * running one has made yet); once its events are no longer kept, what it stored (undefined: its
 * turn is gone too).
 */
async function readTask(env: Env, owner: Owner, ref: TaskRef): Promise<A2aTask | undefined> {
  const stub = sessionStub(env, owner, ref.sessionId);
  const read = await stub.followTurn(ref.turnId, 0, 'events', false);
  if (read.ok) return encodeEvents(read.body, ref.sessionId, undefined);
  const stored = await stub.getTurn(ref.turnId, 'asked');
  return stored.ok ? storedTask(ref, stored.turn, stored.asked ?? []) : undefined;
}

async function cancelTask(env: Env, owner: Owner, ref: TaskRef): Promise<A2aTask> {
  const cancelled = await sessionStub(env, owner, ref.sessionId).cancelTurn(ref.turnId);
  if (!cancelled.ok) {
    if (cancelled.status === 404) throw new RpcError(TASK_NOT_FOUND, `No task ${quoted(ref.taskId)}.`);
    throw new RpcError(TASK_NOT_CANCELABLE, cancelled.body.error.message);
  }
  return getTask(env, owner, ref);
}

/** A task's stream from its turn's event log: everything so far, then live to its end. */
async function follow(env: Env, owner: Owner, ref: TaskRef, emit: Emit | undefined): Promise<A2aTask> {
  const followed = await sessionStub(env, owner, ref.sessionId).followTurn(ref.turnId, 0, 'events');
  if (!followed.ok) throw new RpcError(TASK_NOT_FOUND, `No task ${quoted(ref.taskId)} (or its events are no longer kept).`);
  return encodeEvents(followed.body, ref.sessionId, emit);
}

function rpc(id: string | number | null, body: { result: unknown }): Response {
  return Response.json({ jsonrpc: '2.0', id, ...body });
}

/** A JSON-RPC stream: one SSE event per item, each a JSON-RPC response; an error ends it as one. */
function stream(id: string | number | null, run: (emit: (item: unknown) => void) => Promise<unknown>): Response {
  const encoder = new TextEncoder();
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  const write = (message: unknown) => void writer.write(encoder.encode(`data: ${JSON.stringify(message)}\n\n`)).catch(() => {});
  void run((item) => write({ jsonrpc: '2.0', id, result: item }))
    .catch((error: unknown) => {
      const code = error instanceof RpcError ? error.code : INVALID_PARAMS;
      write(rpcError(id, code, error instanceof Error ? error.message : String(error)));
    })
    .finally(() => void writer.close().catch(() => {}));
  return new Response(readable, { headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } });
}

/**
 * The body as JSON (`readBoundedJson`: bounded as every door's is), or the refusal in JSON-RPC's
 * words: what A2A's own server answers a body that is not JSON (`-32700`, id null), a `413` for
 * one too large to read, and a `415` or `400` for a Content-Encoding it cannot read.
 */
async function readRpcBody(request: Request): Promise<{ json: unknown } | Response> {
  const body = await readBoundedJson(request);
  if (!('problem' in body)) return body;
  if (body.problem === 'too_large') {
    return Response.json(rpcError(null, RPC_ERRORS.invalidRequest, `Invalid Request: a request body is at most ${MAX_BODY_BYTES} bytes.`), { status: 413 });
  }
  const encoding = encodingRefusal(request, body.problem);
  if (encoding) {
    const code = encoding.status === 415 ? RPC_ERRORS.invalidRequest : RPC_ERRORS.parse;
    return Response.json(rpcError(null, code, `${encoding.status === 415 ? 'Invalid Request' : 'Parse error'}: ${encoding.message}`), { status: encoding.status, headers: encoding.headers });
  }
  return Response.json(rpcError(null, RPC_ERRORS.parse, body.problem === 'not_json' ? 'Parse error: the body is not JSON.' : `Parse error: ${TOO_DEEP_MESSAGE}`));
}
