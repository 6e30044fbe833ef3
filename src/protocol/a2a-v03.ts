/**
 * A2A v0.3's JSON wire (docs/a2a.md, "Both versions"): the task and stream items of the v1.0 encoder
 * (`a2a-encoder.ts`) as the clients of A2A's earlier version read them. The same task in other
 * words: each object says what it is (`kind`), states and roles are lowercase words, a part says its
 * kind, a stream's last status update is `final`, and `message/send` answers the task itself.
 * Pure: no event is read here, so the two versions cannot tell a turn differently.
 */
import type { A2aArtifact, A2aMessage, A2aPart, A2aState, A2aStatus, A2aStreamItem, A2aTask } from './a2a-encoder';

type V03Part = { kind: 'text'; text: string } | { kind: 'data'; data: Record<string, unknown> } | { kind: 'file'; file: { bytes: string; mimeType: string } | { uri: string } };
type V03Message = { kind: 'message'; messageId: string; contextId: string; taskId: string; role: 'agent' | 'user'; parts: V03Part[] };
type V03Status = { state: string; message?: V03Message; timestamp: string };
type V03Artifact = { artifactId: string; name: string; parts: V03Part[] };
export type V03Task = { kind: 'task'; id: string; contextId: string; status: V03Status; artifacts: V03Artifact[]; history: V03Message[] };
export type V03StreamItem =
  | V03Task
  | { kind: 'status-update'; taskId: string; contextId: string; status: V03Status; final: boolean }
  | { kind: 'artifact-update'; taskId: string; contextId: string; artifact: V03Artifact; append: boolean; lastChunk: boolean };

const STATES: Record<A2aState, string> = {
  TASK_STATE_SUBMITTED: 'submitted',
  TASK_STATE_WORKING: 'working',
  TASK_STATE_COMPLETED: 'completed',
  TASK_STATE_INPUT_REQUIRED: 'input-required',
  TASK_STATE_FAILED: 'failed',
  TASK_STATE_CANCELED: 'canceled',
};

function part(from: A2aPart): V03Part {
  if ('text' in from) return { kind: 'text', text: from.text };
  if ('data' in from) return { kind: 'data', data: from.data };
  return { kind: 'file', file: 'url' in from ? { uri: from.url } : { bytes: from.raw, mimeType: from.mediaType } };
}
const message = (from: A2aMessage): V03Message => ({
  kind: 'message',
  messageId: from.messageId,
  contextId: from.contextId,
  taskId: from.taskId,
  role: from.role === 'ROLE_USER' ? 'user' : 'agent',
  parts: from.parts.map(part),
});
const artifact = (from: A2aArtifact): V03Artifact => ({ artifactId: from.artifactId, name: from.name, parts: from.parts.map(part) });

function status(from: A2aStatus): V03Status {
  return { state: STATES[from.state], ...(from.message ? { message: message(from.message) } : {}), timestamp: from.timestamp };
}

export function v03Task(task: A2aTask): V03Task {
  return { kind: 'task', id: task.id, contextId: task.contextId, status: status(task.status), artifacts: task.artifacts.map(artifact), history: task.history.map(message) };
}

/** A status update other than `working` is the task's last: a turn stops once (input-required too: its answer is a new turn). */
export function v03StreamItem(item: A2aStreamItem): V03StreamItem {
  if ('task' in item) return v03Task(item.task);
  if ('statusUpdate' in item) {
    const { taskId, contextId, status: last } = item.statusUpdate;
    return { kind: 'status-update', taskId, contextId, status: status(last), final: last.state !== 'TASK_STATE_WORKING' };
  }
  const { taskId, contextId, artifact: chunk, append, lastChunk } = item.artifactUpdate;
  return { kind: 'artifact-update', taskId, contextId, artifact: artifact(chunk), append, lastChunk };
}
