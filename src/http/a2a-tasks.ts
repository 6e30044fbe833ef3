/**
 * What the A2A door (`routes/a2a.ts`) tells of a task apart from the turn it runs: its id, which
 * names the turn and its session; its state, from the turn's; its history cut to what a request asks;
 * and a task whose turn's events are no longer kept, or that has not started, told from what the
 * turn stored. A2A's own error codes are here too.
 */
import type { TurnSummary, TurnView } from '../api/background-responses';
import { assistantText, type UserMessage } from '../api/content';
import { RPC_ERRORS, RpcError } from '../api/json-rpc';
import { quoted } from '../lib/quoted';
import { answerArtifact, historyMessage, statusMessage, type A2aState, type A2aTask } from '../protocol/a2a-encoder';
import type { TurnState } from '../session/store/turns';

/** A2A's own JSON-RPC error codes. */
export const A2A_ERRORS = {
  TASK_NOT_FOUND: -32001,
  TASK_NOT_CANCELABLE: -32002,
  PUSH_NOTIFICATION_NOT_SUPPORTED: -32003,
  UNSUPPORTED_OPERATION: -32004,
  CONTENT_TYPE_NOT_SUPPORTED: -32005,
} as const;

export type TaskRef = { taskId: string; turnId: string; sessionId: string };

export function taskRef(params: Record<string, unknown>): TaskRef {
  const taskId = typeof params.id === 'string' ? params.id : '';
  return { taskId, ...parseTask(taskId) };
}

export function parseTask(taskId: string): { turnId: string; sessionId: string } {
  const match = /^(turn_[0-9a-f]{24}):([A-Za-z0-9._:-]{1,128})$/.exec(taskId);
  if (!match) throw new RpcError(A2A_ERRORS.TASK_NOT_FOUND, `No task ${quoted(taskId)}: a task id is <turnId>:<sessionId>.`);
  return { turnId: match[1]!, sessionId: match[2]! };
}

/**
 * A2A's task states in the order of their numbers (ProtoJSON takes an enum's number as well as its
 * name), each with the turns it holds (`TurnState`, as a listing keeps them): none for the states
 * this agent never gives a task.
 */
export const TASK_STATES: [string, TurnState | 'none' | undefined][] = [
  ['UNSPECIFIED', undefined],
  ['SUBMITTED', 'queued'],
  ['WORKING', 'running'],
  ['COMPLETED', 'completed'],
  ['FAILED', 'failed'],
  ['CANCELED', 'cancelled'],
  ['INPUT_REQUIRED', 'input_required'],
  ['REJECTED', 'none'],
  ['AUTH_REQUIRED', 'none'],
];

/** The task state of a turn's: a finished turn completed, or waiting for input when it stopped for calls. */
export function taskState(turn: Pick<TurnSummary, 'status' | 'stopReason'>): A2aState {
  const held: TurnState = turn.status !== 'finished' ? turn.status : turn.stopReason === 'tool_use' ? 'input_required' : 'completed';
  return `TASK_STATE_${TASK_STATES.find(([, state]) => state === held)![0]}` as A2aState;
}

/** A request's `historyLength`: a number of messages, or none given (all of them). */
export function historyLength(value: unknown, under = ''): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
  throw new RpcError(RPC_ERRORS.invalidParams, `Invalid params: params.${under}historyLength: a number of messages, 0 or more.`);
}

/** A task with the last `length` messages of its history (A2A: 0 is none, none given is all). */
export function trim(task: A2aTask, length: number | undefined): A2aTask {
  return length === undefined || task.history.length <= length ? task : { ...task, history: length === 0 ? [] : task.history.slice(-length) };
}

/**
 * A task whose turn's events are no longer kept (after 24 hours, or past a session's newest 64
 * turns): its state, its times, its answer's text and its history (`asked`: the user's messages the
 * turn brought) as the session's messages keep them. What the events alone told is gone: the calls
 * it waited for, its error's message.
 */
export function storedTask(ref: TaskRef, turn: TurnView, asked: UserMessage[]): A2aTask {
  const text = (turn.messages ?? []).flatMap((message) => (message.role === 'assistant' ? [assistantText(message)] : [])).filter(Boolean).join('\n\n');
  const state = taskState(turn);
  const message = statusMessage({ taskId: ref.taskId, contextId: ref.sessionId }, [{ text }]);
  const status = { state, ...(state === 'TASK_STATE_COMPLETED' && text ? { message } : {}), timestamp: turn.endedAt ?? turn.startedAt ?? new Date().toISOString() };
  return { id: ref.taskId, contextId: ref.sessionId, status, artifacts: text ? [answerArtifact([{ text }])] : [], history: historyOf(ref.taskId, ref.sessionId, asked) };
}

/**
 * A task whose turn has not ended: submitted (queued behind another) or working, nothing of its
 * answer yet; its history the user's messages it brings (`asked`).
 */
export function unfinishedTask(taskId: string, contextId: string, queued: boolean, asked: UserMessage[]): A2aTask {
  const state = queued ? 'TASK_STATE_SUBMITTED' : 'TASK_STATE_WORKING';
  return { id: taskId, contextId, status: { state, timestamp: new Date().toISOString() }, artifacts: [], history: historyOf(taskId, contextId, asked) };
}

/** A task's history read from the user's messages its turn brings, as its events would have told it. */
function historyOf(taskId: string, contextId: string, asked: UserMessage[]): A2aTask['history'] {
  return asked.map((message, index) => historyMessage({ taskId, contextId }, index + 1, message));
}
