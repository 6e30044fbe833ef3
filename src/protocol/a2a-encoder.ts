/**
 * The A2A door (docs/a2a.md): a turn as an A2A task's stream (`StreamResponse`s of the A2A v1.0
 * JSON binding, the shapes of `@a2a-js/sdk`): the task as it starts, its answer's text as chunks of
 * one artifact, and its last status: completed, input-required (with the calls it waits for as a data
 * part), failed or canceled; its history holds the user's messages the turn brought. `task()` is the
 * task as the stream has made it, for the answers that are not streamed.
 */
import type { AgentEvent, PendingToolCall } from '../agent/events';
import type { UserMessage } from '../api/content';
import { ignoring, tableEncoder, type WireEncoder } from './encoder';

/** The task states this door uses, as A2A's JSON names them (submitted: a queued turn, as `GetTask` tells it). */
export type A2aState = 'TASK_STATE_SUBMITTED' | 'TASK_STATE_WORKING' | 'TASK_STATE_COMPLETED' | 'TASK_STATE_INPUT_REQUIRED' | 'TASK_STATE_FAILED' | 'TASK_STATE_CANCELED';
/** A part: text, data, or (a user's) image, by its bytes or its URL. */
export type A2aPart = { text: string } | { data: Record<string, unknown> } | { raw: string; mediaType: string } | { url: string };
export type A2aMessage = { messageId: string; contextId: string; taskId: string; role: 'ROLE_AGENT' | 'ROLE_USER'; parts: A2aPart[] };
export type A2aStatus = { state: A2aState; message?: A2aMessage; timestamp: string };
export type A2aArtifact = { artifactId: string; name: string; parts: A2aPart[] };
export type A2aTask = { id: string; contextId: string; status: A2aStatus; artifacts: A2aArtifact[]; history: A2aMessage[] };

export type A2aStreamItem =
  | { task: A2aTask }
  | { statusUpdate: { taskId: string; contextId: string; status: A2aStatus } }
  | { artifactUpdate: { taskId: string; contextId: string; artifact: A2aArtifact; append: boolean; lastChunk: boolean } };

const ANSWER = 'answer';

/** The agent's status message of a task (one a task has at a time, so its id is the task's). */
export const statusMessage = (ids: { taskId: string; contextId: string }, parts: A2aPart[]): A2aMessage => ({ messageId: `${ids.taskId}/status`, contextId: ids.contextId, taskId: ids.taskId, role: 'ROLE_AGENT', parts });
/** The one artifact of a task: its answer's text. */
export const answerArtifact = (parts: A2aPart[]): A2aArtifact => ({ artifactId: ANSWER, name: ANSWER, parts });

export type A2aEncoder = WireEncoder<A2aStreamItem> & { task(): A2aTask };

/** What a turn brings before it works: the task goes out once they are in its history. */
const PRELUDE = new Set<AgentEvent['type']>(['turn-start', 'input-message', 'tool-answer']);

/** `taskId`: the A2A task's id (the turn and its session, docs/a2a.md); `contextId`: the session. */
export function createA2aEncoder(ids: { taskId: string; contextId: string }, now: () => number = Date.now): A2aEncoder {
  const { taskId, contextId } = ids;
  let text = '';
  /** The text of a later step starts a paragraph of its own. */
  let newStep = false;
  let pending: PendingToolCall[] = [];
  // Each status at the time of its event, so a task read again from its log is the task as it was.
  const at = (time: number | undefined) => new Date(time ?? now()).toISOString();
  let status: A2aStatus = { state: 'TASK_STATE_WORKING', timestamp: at(undefined) };
  const message = (parts: A2aPart[]) => statusMessage({ taskId, contextId }, parts);
  const artifact = answerArtifact;
  /** The user's messages the turn brought, as A2A keeps a task's history. */
  const history: A2aMessage[] = [];
  const task = (): A2aTask => ({ id: taskId, contextId, status, artifacts: text ? [artifact([{ text }])] : [], history: [...history] });
  let announced = false;
  const encoder = tableEncoder<A2aStreamItem>({
    'turn-start': (event) => {
      status = { state: 'TASK_STATE_WORKING', timestamp: at(event.at) };
      return [];
    },
    'input-message': ({ message: input }) => {
      if (input.role === 'user') history.push(historyMessage(ids, history.length + 1, input));
      return [];
    },
    'text-delta': (event) => {
      const append = text !== '';
      const delta = append && newStep ? `\n\n${event.delta}` : event.delta;
      newStep = false;
      text += delta;
      return [{ artifactUpdate: { taskId, contextId, artifact: artifact([{ text: delta }]), append, lastChunk: false } }];
    },
    'step-start': () => {
      newStep = true;
      return [];
    },
    'turn-suspend': (event) => {
      pending = event.pending;
      return [];
    },
    'turn-stop': (event) => {
      const last: A2aStreamItem[] = text ? [{ artifactUpdate: { taskId, contextId, artifact: artifact([]), append: true, lastChunk: true } }] : [];
      const timestamp = at(event.at);
      if (event.stopReason === 'tool_use') {
        status = { state: 'TASK_STATE_INPUT_REQUIRED', message: message([{ data: { pendingToolCalls: pending } }]), timestamp };
      } else if (event.stopReason === 'error') {
        const state = event.error?.code === 'cancelled' ? 'TASK_STATE_CANCELED' : 'TASK_STATE_FAILED';
        status = { state, message: message([{ text: event.error?.message ?? 'The turn failed.' }, { data: { error: event.error ?? null } }]), timestamp };
      } else {
        status = { state: 'TASK_STATE_COMPLETED', ...(text ? { message: message([{ text }]) } : {}), timestamp };
      }
      return [...last, { statusUpdate: { taskId, contextId, status } }];
    },
    ...ignoring(
      'tool-answer', 'step-end', 'model-call-start', 'model-call-retry', 'model-call-end', 'text-start', 'text-end',
      'thinking-start', 'thinking-delta', 'thinking-end', 'tool-input-start', 'tool-input-delta', 'tool-input-end', 'tool-call', 'tool-execution-start',
      'tool-execution-end', 'tool-progress', 'subagent-event', 'subagent-exposed', 'iteration-limit', 'assistant-message', 'context-compacted',
    ),
  });
  return {
    encode(event) {
      if (announced || PRELUDE.has(event.type)) return encoder.encode(event);
      // The task as it was before this event: working, whatever the event then makes of it.
      announced = true;
      return [{ task: task() }, ...encoder.encode(event)];
    },
    task,
  };
}

/** The `n`th user's message a turn brought, as a task's history holds it (from its event, or as stored once its events are gone). */
export function historyMessage({ taskId, contextId }: { taskId: string; contextId: string }, n: number, message: UserMessage): A2aMessage {
  return { messageId: `${taskId}/user/${n}`, contextId, taskId, role: 'ROLE_USER', parts: userParts(message) };
}

function userParts({ content }: UserMessage): A2aPart[] {
  if (typeof content === 'string') return [{ text: content }];
  return content.map((block) => (block.type === 'text' ? { text: block.text } : 'url' in block ? { url: block.url } : { raw: block.data, mediaType: block.mimeType }));
}
