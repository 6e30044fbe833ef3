/** Calls the real Worker (in workerd, with its real Durable Objects) and parses what comes back. */
import { expect } from 'vitest';
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import worker from '../../src/index';
import { EventSourceParserStream } from 'eventsource-parser/stream';

export type WireEvent = { event: string; id: string | undefined; data: Record<string, any> };

const BASE = 'http://localhost';

/** A request to the Worker at `path` on the local host, with the real bindings. */
export function fetchWorker(path: string, init?: RequestInit): Promise<Response> {
  return callWorker(new Request(`${BASE}${path}`, init));
}

/** The contexts of the calls not yet settled (`settleWorkerCalls`). */
const contexts: ExecutionContext[] = [];

/**
 * One call of the Worker's own fetch handler, the module instance the pool runs, with the given
 * bindings (the real ones by default). Called directly rather than through `exports.default.fetch`,
 * whose per-call cost in this pool version grows with every call made (milliseconds after a few
 * thousand), which long tests cannot afford.
 */
export function callWorker(request: Request, bindings: typeof env = env): Promise<Response> {
  const context = createExecutionContext();
  contexts.push(context);
  return worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, bindings, context);
}

/**
 * Waits for the `waitUntil` work of every call so far: the request's log line is written after its
 * response, and no work may outlive its test (it would log into the next one's lines, or past the
 * file's end). Run after each test (`test/setup-workers.ts`).
 */
export async function settleWorkerCalls(): Promise<void> {
  await Promise.all(contexts.splice(0).map((context) => waitOnExecutionContext(context)));
}

let counter = 0;
/** A session id of its own for each test: storage is shared within a test file. */
export function newSessionId(label = 's'): string {
  counter += 1;
  return `${label}-${counter}-${Math.random().toString(36).slice(2, 8)}`;
}

export function postTurn(sessionId: string, body: unknown): Promise<Response> {
  return fetchWorker(`/sessions/${sessionId}/turns`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** Every SSE event of a response, parsed with eventsource-parser; comments (heartbeats) dropped. */
export async function readSse(response: Response): Promise<WireEvent[]> {
  const events: WireEvent[] = [];
  const stream = response.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  for await (const message of stream as unknown as AsyncIterable<{ event?: string; id?: string; data: string }>) {
    events.push({ event: message.event ?? 'message', id: message.id, data: JSON.parse(message.data) });
  }
  return events;
}

export type TurnResult =
  | { mode: 'none'; status: number; body: Record<string, any> }
  | { mode: 'delta' | 'message'; status: number; events: WireEvent[] };

export async function turn(sessionId: string, body: Record<string, unknown>): Promise<TurnResult> {
  const response = await postTurn(sessionId, body);
  const mode = (body.stream as 'delta' | 'message' | 'none' | undefined) ?? 'none';
  if (mode === 'none' || response.status !== 200) return { mode: 'none', status: response.status, body: await response.json() };
  return { mode, status: response.status, events: await readSse(response) };
}

/**
 * The messages of a session's active branch (or of the branch that ends at `leaf`) as the history
 * holds them, without their places in the tree; checked first to form one path: each message's
 * parent is the one before it.
 */
export async function history(sessionId: string, leaf?: string): Promise<any[]> {
  return (await storedMessages(sessionId, leaf)).map(withoutPlace);
}

/** The messages of a branch with their ids, parents and siblings, every page read; checked to form one path. */
export async function storedMessages(sessionId: string, leaf?: string): Promise<any[]> {
  const messages: any[] = [];
  let cursor: string | undefined;
  do {
    const response = await fetchWorker(`/sessions/${sessionId}/messages?limit=500${cursor ? `&cursor=${cursor}` : ''}${leaf ? `&leaf=${leaf}` : ''}`);
    if (response.status === 404) {
      await response.body?.cancel();
      return [];
    }
    const page = (await response.json()) as { messages: any[]; next?: string };
    messages.push(...page.messages);
    cursor = page.next;
  } while (cursor);
  let previous: string | undefined;
  for (const message of messages) {
    if (message.role === 'compaction') continue;
    // A tool result follows the seq its call reserved before it, stored or not (results may come out of order).
    const parent = message.role === 'tool' ? `msg_${Number(String(message.id).slice(4)) - 1}` : previous;
    if (typeof message.id !== 'string' || message.parentId !== parent) {
      throw new Error(`${message.id} follows ${message.parentId}, not ${parent}: the branch is not one path`);
    }
    if (message.siblingIds && !message.siblingIds.includes(message.id)) throw new Error(`${message.id} is not among its siblings`);
    previous = message.id;
  }
  return messages;
}

/** A stored message without its place in the tree (`id`, `parentId`, `siblingIds`). */
export function withoutPlace<T extends Record<string, unknown>>(message: T): Omit<T, 'id' | 'parentId' | 'siblingIds'> {
  const { id: _id, parentId: _parentId, siblingIds: _siblingIds, ...rest } = message;
  return rest;
}

export async function session(sessionId: string): Promise<{ status: number; body: any }> {
  const response = await fetchWorker(`/sessions/${sessionId}`);
  return { status: response.status, body: await response.json() };
}

export const user = (content: string) => ({ role: 'user', content });

/** Waits until the session's turn is no longer running (a turn the client left goes on). */
export async function waitIdle(sessionId: string, timeoutMs = 10_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await session(sessionId);
    if (!body.running) return body;
    if (Date.now() > deadline) throw new Error(`session ${sessionId} still running`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * The invariants of a stored history: every tool call answered exactly once, by results that follow
 * their assistant message in call order, before the next assistant message; no tool_permission.
 * `allowPendingAtEnd`: the last assistant message may still wait for some answers.
 */
export function checkHistoryInvariants(messages: any[], pendingIds: string[] = []): void {
  const answered = new Set<string>();
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index];
    if (message.role === 'tool_permission') throw new Error('tool_permission stored');
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    const calls: string[] = message.content.filter((block: any) => block.type === 'tool_use').map((block: any) => block.toolCallId);
    const results: string[] = [];
    let next = index + 1;
    while (messages[next]?.role === 'tool') results.push(messages[next++].toolCallId);
    const expected = calls.filter((id) => !pendingIds.includes(id) || results.includes(id));
    if (JSON.stringify(results) !== JSON.stringify(expected)) {
      throw new Error(`results ${JSON.stringify(results)} do not answer calls ${JSON.stringify(calls)} in order (pending ${JSON.stringify(pendingIds)})`);
    }
    const owed = calls.filter((id) => !results.includes(id));
    if (owed.length > 0 && next < messages.length) throw new Error(`calls ${owed} unanswered before the next message`);
    for (const id of results) {
      if (answered.has(id)) throw new Error(`call ${id} answered twice`);
      answered.add(id);
    }
  }
}

/** A `stream: "none"` turn's JSON body. */
export async function jsonTurn(sessionId: string, body: Record<string, unknown>): Promise<any> {
  const response = await postTurn(sessionId, body);
  expect(response.status).toBe(200);
  return response.json();
}

/** A `stream: "delta"` turn: its events, the data of the events of one name, and its turn_stop. */
export async function streamTurn(sessionId: string, body: Record<string, unknown>) {
  const result = await turn(sessionId, { stream: 'delta', ...body });
  if (result.mode === 'none') throw new Error(`status ${result.status}: ${JSON.stringify(result.body)}`);
  const of = (name: string) => result.events.filter((e) => e.event === name).map((e) => e.data);
  return { events: result.events, of, stop: result.events.at(-1)!.data };
}
