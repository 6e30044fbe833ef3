/**
 * The chat socket's client frames (docs/chat-socket.md), handled inside the session's Durable
 * Object. Messages and answers are staged in SQLite until a completion takes them: `append_message`
 * stages, `request_completion` starts a turn over what is staged, and once every pending tool call
 * is answered (approvals and client results alike) the completion goes on by itself. A frame that is
 * refused gets an `error` frame and changes nothing.
 */
import type { PendingToolCall } from '../agent/events';
import type { AppendMessageFrame, RequestCompletionFrame, ToolConfirmationFrame } from '../api/socket-client-frames';
import { parseClientFrame } from '../api/socket-client-frames';
import { checkToolNames } from '../api/tool-names';
import { turnRequestSchema, type IfBusy, type InputMessage, type TurnRequest } from '../api/turn-request';
import { LIMITS } from '../api/limits';
import { pickModel, readConfig } from '../config';
import type { Env } from '../env';
import { ApiError, invalidRequest } from '../lib/errors';
import { errorFrame, notificationFrame, type ServerFrame } from '../protocol/socket-frames';
import { BUILT_IN_TOOL_NAMES } from '../tools/built-in-names';
import type { CompletionOptions } from './store/staged';
import type { SessionStores } from './store/stores';
import type { Door } from './door';
import type { Admitted } from './turns-door';

/**
 * What a socket carries from its upgrade (kept through hibernation by `serializeAttachment`):
 * `expiresAt`, when the token it was opened with expires (ms; none without AUTH_SECRET).
 */
export type SocketAttachment = { sessionId: string; userId: string; expiresAt?: number };

/**
 * What may wait staged for a completion: as much as one `POST .../turns` may bring, since the
 * completion is that request.
 */
export const MAX_STAGED_MESSAGES = LIMITS.messagesPerRequest;
export const MAX_STAGED_BYTES = LIMITS.bodyBytes;

/** What the door needs from the session object. */
export interface SocketHost {
  readonly env: Env;
  readonly stores: SessionStores;
  isRunning(): boolean;
  /** Once a running turn's opening is stored (a task at most: docs/decisions.md, 43). */
  settled(): Promise<void>;
  /** One frame against the user's rate limit (docs/users.md); throws `429 rate_limited`. */
  takeRate(): Promise<void>;
  /** The one launcher, under the completion's policy while another runs (`turns-door.ts`); throws `ApiError` when refused. */
  admit(request: () => TurnRequest | undefined, door: Omit<Door, 'follower'> & { ifBusy: IfBusy }): Promise<Admitted>;
  /** Cancels the running turn and resolves when it has stopped. */
  stop(): Promise<void>;
  send(socket: WebSocket, frame: ServerFrame): void;
  close(socket: WebSocket, code: number, reason: string): void;
  broadcast(frame: ServerFrame): void;
}

export class SocketDoor {
  /** The frame being handled: the next waits for it. */
  private handling: Promise<void> = Promise.resolve();

  constructor(private readonly host: SocketHost) {}

  /**
   * Frames are handled one at a time, in the order they came (from every socket of the session):
   * a handler that awaits (the rate limit, the tools' lists) would otherwise let the next frame
   * overtake it, and staged messages would change their order.
   */
  handle(socket: WebSocket, raw: string | ArrayBuffer, attachment: SocketAttachment): Promise<void> {
    const handled = this.handling.then(() => this.handleNow(socket, raw, attachment));
    this.handling = handled.catch(() => {});
    return handled;
  }

  private async handleNow(socket: WebSocket, raw: string | ArrayBuffer, attachment: SocketAttachment): Promise<void> {
    // As every read of the session: a turn another door just started is stored before a frame reads
    // its pending calls (an answer it carried would pass as still owed) or stops it.
    await this.host.settled();
    // A token is checked when the socket opens and at every frame after: an hour's token is not a lifetime's socket.
    if (attachment.expiresAt !== undefined && Date.now() >= attachment.expiresAt) {
      this.host.send(socket, errorFrame('token_expired', 'The token this socket was opened with has expired; open a new socket with a new token.', null));
      return this.host.close(socket, 4401, 'token_expired: open a new socket with a new token.');
    }
    const parsed = parseClientFrame(raw);
    if (!parsed.ok) return this.host.send(socket, errorFrame(parsed.code, parsed.message, parsed.requestId));
    const frame = parsed.frame;
    try {
      // Every frame counts against the user's rate, as a request would; a stop is always let through.
      if (frame.type !== 'stop_completion') await this.host.takeRate();
      switch (frame.type) {
        case 'append_message':
          return await this.append(socket, frame, attachment);
        case 'request_completion':
          return await this.complete(socket, frame, attachment);
        case 'stop_completion':
          if (!this.host.isRunning()) throw new ApiError(409, 'no_completion_running', 'No completion is running in this session.');
          return await this.host.stop();
        case 'tool_confirmation_response':
          return await this.confirm(frame, attachment);
      }
    } catch (error) {
      const requestId = frame.request_id ?? null;
      if (error instanceof ApiError) return this.host.send(socket, errorFrame(error.code, error.message, requestId));
      console.error('socket frame failed', frame.type, error);
      this.host.send(socket, errorFrame('internal_error', 'The session failed to handle this frame; try again.', requestId));
    }
  }

  /** Once every pending call is answered, the completion goes on by itself. */
  async resumeIfAnswered(sessionId: string, requestId: string | null): Promise<void> {
    if (!this.allAnswered()) return;
    const options = this.host.stores.staged.options() ?? { reasoning: false, tools: [] };
    await this.start(sessionId, options, requestId, () => this.allAnswered());
  }

  private allAnswered(): boolean {
    if (this.host.isRunning()) return false;
    const pending = this.pending();
    if (pending.length === 0) return false;
    const answered = new Set(this.current(pending).flatMap((message) => (message.role === 'tool' || message.role === 'tool_permission' ? [message.toolCallId] : [])));
    return pending.every((call) => answered.has(call.toolCallId));
  }

  private async append(socket: WebSocket, frame: AppendMessageFrame, { sessionId }: SocketAttachment): Promise<void> {
    if (frame.role === 'user') {
      this.host.stores.meta.ensureCreated(sessionId);
      this.stage({ role: 'user', content: frame.content });
      return this.host.send(socket, { type: 'message_appended' });
    }
    this.expectPending(frame.tool_call_id, 'client');
    this.stage({ role: 'tool', toolCallId: frame.tool_call_id, content: frame.content });
    this.host.send(socket, { type: 'message_appended' });
    return this.resumeIfAnswered(sessionId, frame.request_id ?? null);
  }

  private async confirm(frame: ToolConfirmationFrame, { sessionId }: SocketAttachment): Promise<void> {
    this.expectPending(frame.tool_call_id, 'permission');
    const granted = frame.action === 'approve';
    this.stage({ role: 'tool_permission', toolCallId: frame.tool_call_id, granted, ...(frame.reason ? { reason: frame.reason } : {}) });
    this.host.broadcast({ type: 'tool_confirmation_processed', tool_call_id: frame.tool_call_id, action: frame.action });
    return this.resumeIfAnswered(sessionId, frame.request_id ?? null);
  }

  private async complete(socket: WebSocket, frame: RequestCompletionFrame, { sessionId }: SocketAttachment): Promise<void> {
    const config = readConfig(this.host.env);
    const model = pickModel(config, frame.model);
    // A front-end names its tools once: a completion that names none keeps the last ones.
    const tools = frame.tools ?? this.host.stores.staged.options()?.tools ?? [];
    checkToolNames(tools, BUILT_IN_TOOL_NAMES);
    const ifBusy = frame.if_busy ?? 'reject';
    if (this.host.isRunning() && ifBusy === 'reject') {
      throw new ApiError(409, 'session_busy', 'A completion is already running in this session. Wait for its completion_done, stop it, or ask again with "if_busy": "enqueue", "interrupt" or "steer".');
    }
    const pending = this.pending();
    if (pending.length === 0 && this.current(pending).length === 0) {
      throw new ApiError(400, 'nothing_to_complete', 'Nothing is waiting for a completion: send append_message first.');
    }
    const options: CompletionOptions = { model, reasoning: frame.reasoning ?? false, tools };
    const admitted = await this.start(sessionId, options, frame.request_id ?? null, () => true, ifBusy);
    // Queued or steered: said to the socket that asked; the completion's frames come to every socket as it runs.
    if (admitted?.kind === 'queued') this.host.send(socket, notificationFrame(`Queued at position ${admitted.body.position}: it runs after the completion that is running.`));
    if (admitted?.kind === 'steered') this.host.send(socket, notificationFrame('Handed to the running completion, which takes it after its current step.'));
  }

  /**
   * Starts the turn over what is staged; only once it started are the staged rows taken. What is
   * staged is read once the tools are known, and `still` says whether the start is still due
   * (another frame may have started a turn meanwhile), so nothing is lost or taken twice.
   */
  private async start(sessionId: string, options: CompletionOptions, requestId: string | null, still: () => boolean, ifBusy: IfBusy = 'reject'): Promise<Admitted | undefined> {
    const model = options.model ?? readConfig(this.host.env).defaultModel;
    const request = (): TurnRequest | undefined => {
      if (!still()) return undefined;
      const messages = this.current(this.pending());
      if (messages.length === 0) throw new ApiError(400, 'nothing_to_complete', 'Nothing is waiting for a completion: send append_message first.');
      // The completion is a turn request like any other: the same schema and limits as `POST .../turns`.
      const checked = turnRequestSchema().safeParse({ messages, tools: options.tools, stream: 'none' });
      if (!checked.success) throw invalidRequest('The completion', checked.error.issues);
      return checked.data;
    };
    const admitted = await this.host.admit(request, { sessionId, model, socket: { requestId, reasoning: options.reasoning }, ifBusy });
    if (admitted.kind === 'started' && admitted.turnId === '') return undefined;
    this.host.stores.staged.setOptions(options);
    this.host.stores.staged.clear();
    return admitted;
  }

  /** Stages a message, within the bounds of one turn request. */
  private stage(message: InputMessage): void {
    const size = JSON.stringify(message).length;
    const { count, bytes } = this.host.stores.staged.size();
    if (count + 1 > MAX_STAGED_MESSAGES || bytes + size > MAX_STAGED_BYTES) {
      throw new ApiError(
        413,
        'too_much_staged',
        `At most ${MAX_STAGED_MESSAGES} messages and ${MAX_STAGED_BYTES} bytes wait for a completion, as in one turn request; send request_completion first.`,
      );
    }
    this.host.stores.staged.stage(message);
  }

  /**
   * What is staged, less the answers to calls that are no longer pending (a turn posted over HTTP
   * may have answered them meanwhile): those would make every later completion fail.
   */
  private current(pending: PendingToolCall[]): InputMessage[] {
    const ids = new Set(pending.map((call) => call.toolCallId));
    return this.host.stores.staged.staged().filter((message) => (message.role !== 'tool' && message.role !== 'tool_permission') || ids.has(message.toolCallId));
  }

  private pending(): PendingToolCall[] {
    return this.host.stores.meta.exists() ? this.host.stores.history.pendingCalls() : [];
  }

  /** The call must be pending, of the kind this frame answers, and not answered already. */
  private expectPending(toolCallId: string, awaiting: PendingToolCall['awaiting']): void {
    const call = this.pending().find((pending) => pending.toolCallId === toolCallId);
    if (!call) throw new ApiError(400, 'unknown_tool_call', `No pending tool call has the id ${toolCallId}.`);
    if (call.awaiting !== awaiting) {
      throw new ApiError(
        400,
        'unknown_tool_call',
        awaiting === 'client'
          ? `The tool call ${toolCallId} waits for the user's approval: answer it with tool_confirmation_response.`
          : `The tool call ${toolCallId} is a client tool: answer it with append_message {role: "tool"}.`,
      );
    }
    const answered = this.current([call]).some((message) => (message.role === 'tool' || message.role === 'tool_permission') && message.toolCallId === toolCallId);
    if (answered) throw new ApiError(409, 'already_answered', `The tool call ${toolCallId} is answered already.`);
  }
}
