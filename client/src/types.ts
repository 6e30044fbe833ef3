/**
 * The wire shapes of the turns API, as the client sees them. Written out so this package stands
 * alone; the service's tests check them against its own schemas (`src/api/responses.ts`).
 */

export type TextBlock = { type: 'text'; text: string };
export type ImageBlock = { type: 'image'; mimeType: string; data: string } | { type: 'image'; url: string };
export type ThinkingBlock = { type: 'thinking'; thinking: string; signature?: string; redacted?: boolean };
export type ToolUseBlock = { type: 'tool_use'; toolCallId: string; name: string; input: Record<string, unknown>; signature?: string };
export type ToolResultContent = string | (TextBlock | ImageBlock)[];

export type UserMessage = { role: 'user'; content: string | (TextBlock | ImageBlock)[] };
export type SystemMessage = { role: 'system'; content: string | TextBlock[] };
export type AssistantMessage = { role: 'assistant'; content: string | (ThinkingBlock | TextBlock | ToolUseBlock)[] };
export type ToolMessage = { role: 'tool'; toolCallId: string; content: ToolResultContent; isError?: boolean };
/** A lasting permission rule: later calls of the tool whose subject matches the glob are allowed, denied or asked. */
export type PermissionRule = { tool_name: string; rule_content: string; behavior: 'allow' | 'deny' | 'ask'; source?: string };
/** The user's answer to an untrusted call: `input`, the arguments as edited (granted only); `rule(s)`, kept by the session. */
export type ToolPermission = {
  role: 'tool_permission';
  toolCallId: string;
  granted: boolean;
  reason?: string;
  input?: Record<string, unknown>;
  rule?: PermissionRule;
  rules?: PermissionRule[];
};
/** What a turn request may bring. */
export type InputMessage = UserMessage | SystemMessage | ToolMessage | ToolPermission;
export type HistoryMessage = UserMessage | SystemMessage | AssistantMessage | ToolMessage;

/** A tool the client runs: the model may call it; the turn then waits for its result. */
export type ClientTool = { name: string; description?: string; parameters?: Record<string, unknown> };

/** What a turn does when another runs on the session: refuse (409), wait (202), cancel the other, or join it (202). */
export type IfBusy = 'reject' | 'enqueue' | 'interrupt' | 'steer';
/**
 * `parentId`: continue from that message rather than the active leaf, on a new branch that becomes
 * active (null: a new first message); `messages` may then be empty, to have the model answer again.
 */
export type TurnInput = { messages: InputMessage[]; tools?: ClientTool[]; model?: string; ifBusy?: IfBusy; parentId?: string | null };

/** Where a stored message stands in the history's tree: `siblingIds` (with itself) only where there are several. */
export type MessagePlace = { id: string; parentId?: string; siblingIds?: string[] };
export type StoredMessage = (UserMessage & MessagePlace) | (SystemMessage & MessagePlace) | (AssistantMessage & MessagePlace) | (ToolMessage & MessagePlace);

export type Usage = {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  cacheWriteInputTokens: number;
  reasoningTokens: number;
};
export type TurnUsage = Usage & { calls: (Usage & { model: string; purpose?: 'compaction' })[] };
export type StopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'refusal' | 'error';
export type TurnError = { code: string; message: string };
export type CompactionReport = {
  messagesSummarized: number;
  totalSummarized: number;
  tokensBefore: number;
  tokensAfter: number;
  reason: 'threshold' | 'overflow';
};

/** The data of each SSE event of `stream: "delta"` and `"message"`, by its name. */
export type TurnEventData = {
  turn_start: { turnId: string; model: string };
  text_delta: { delta: string };
  thinking_delta: { delta: string };
  text: { text: string; incomplete?: true };
  thinking: { thinking: string; signature?: string; incomplete?: true };
  tool_call: { toolCallId: string; name: string; input: Record<string, unknown> };
  tool_result: { toolCallId: string; content: ToolResultContent; isError?: true };
  turn_stop: {
    stopReason: StopReason;
    turnId: string;
    usage: TurnUsage;
    error?: TurnError;
    maxIterationsReached?: true;
    compacted?: CompactionReport[];
  };
};
export type TurnEventName = keyof TurnEventData;
/** One event of a turn's stream: its name, its data, and its id (the turn's event number). */
export type TurnEvent = { [Name in TurnEventName]: { event: Name; data: TurnEventData[Name]; id: number } }[TurnEventName];

/** `stream: "none"`: what the turn added to the history, and how it stopped. */
export type TurnBody = {
  stopReason: StopReason;
  messages: ((AssistantMessage | ToolMessage) & MessagePlace)[];
  turnId: string;
  usage: TurnUsage;
  error?: TurnError;
  maxIterationsReached?: true;
  compacted?: CompactionReport[];
};

export type PendingToolCall = { toolCallId: string; name: string; input: Record<string, unknown>; awaiting: 'client' | 'permission' };

export type Session = {
  sessionId: string;
  title?: string;
  createdAt: string;
  updatedAt: string;
  messageCount: number;
  pendingToolCalls: PendingToolCall[];
  usage: Usage;
  lastTurn?: { turnId: string; status: TurnStatus; stopReason?: string; errorCode?: string };
  running: boolean;
  runningTurnId?: string;
  /** The turns waiting for the session, first to run first. */
  queuedTurns: { turnId: string; position: number }[];
  /** The session and message a fork copied its history from. */
  forkedFrom?: { sessionId: string; messageId: string };
};

export type CompactionMarker = { role: 'compaction'; summary: string; summarizedMessages: number };
export type MessagesPage = { messages: (StoredMessage | CompactionMarker)[]; next?: string };
/** One branch of a session: the path from the first message to `leafId`. */
export type Branch = { leafId: string; active: boolean; messageCount: number; updatedAt: string; forkPointId?: string };
export type CancelledTurn = { turnId: string; status: TurnStatus; stopReason?: string };
/** A turn accepted while another ran (`202`): queued, with its place from 1, or steered into the running turn. */
export type AcceptedTurn =
  | { turnId: string; status: 'queued'; position: number }
  | { turnId: string; status: 'steered' }
  /** `Prefer: respond-async` (`turns.background`): the turn runs, or (a retried key) ran, without its client. */
  | { turnId: string; status: 'running' | 'finished' | 'cancelled' | 'failed' };
export type ErrorBody = { error: { code: string; message: string; details?: Record<string, unknown> } };

/** A session in its user's list (`GET /sessions`). */
export type SessionEntry = {
  sessionId: string;
  title?: string;
  createdAt: string;
  updatedAt: string;
  messageCount: number;
  running: boolean;
  /** How many tool calls wait for a result or a permission. */
  pendingToolCalls: number;
  /** The session a sub-agent ran for, or a fork was copied from. */
  parentSessionId?: string;
};
export type SessionList = { sessions: SessionEntry[]; next?: string };

/** Model calls and tokens; `costUsd` from the deployment's PRICES, null when no call had a price. */
export type Spend = Usage & { calls: number; costUsd: number | null };
export type UsageDay = Spend & { date: string; model: string };
export type UsageReport = { days: UsageDay[]; total: Spend };

/** The caller (`GET /users/me`): limits are null where the deployment has none. */
export type UserView = {
  userId: string;
  sessionCount: number;
  today: { date: string; usage: Spend };
  limits: { dailyTokens: number | null; dailyCostUsd: number | null; resetAt: string };
  jurisdiction?: string;
};

/** A line of `GET /users/me/export`. */
export type ExportLine =
  | ({ type: 'session' } & SessionEntry)
  | ({ type: 'message'; sessionId: string; id: string; parentId?: string; createdAt: string } & HistoryMessage)
  | { type: 'note'; sessionId: string; id: number; text: string; savedAt: string }
  | ({ type: 'rule'; sessionId: string } & PermissionRule)
  | ({ type: 'schedule'; sessionId: string } & Schedule);

/** A turn's state (`GET .../turns/{turnId}`); once ended, what a JSON turn answers. */
/** A turn's state: waiting in the queue, running, or ended (`failed`: with an error, or cut by a restart). */
export type TurnStatus = 'queued' | 'running' | 'finished' | 'cancelled' | 'failed';
export type TurnView = Partial<Omit<TurnBody, 'turnId'>> & {
  turnId: string;
  status: TurnStatus;
  /** Absent while it waits in the queue. */
  startedAt?: string;
  endedAt?: string;
};

/** One turn of a session's list (`turns.list`): its state and times, not what it said (`turns.get` has that). */
export type TurnSummary = {
  turnId: string;
  status: TurnStatus;
  model: string;
  /** Absent while it waits in the queue. */
  startedAt?: string;
  endedAt?: string;
  stopReason?: StopReason;
  /** The code of the error it ended with, if any. */
  errorCode?: string;
  /** Its place in the queue, from 1, while it waits. */
  position?: number;
  /** The schedule that started it, if one did. */
  scheduleId?: string;
};
/** A page of a session's turns, newest first; `next` is the cursor of the next page, absent on the last. */
export type TurnsPage = { turns: TurnSummary[]; next?: string };

/** A webhook delivery of the session, with each attempt (`status`: the receiver's answer). */
export type Delivery = {
  webhookId: string;
  type: 'turn.completed' | 'turn.requires_action' | 'turn.failed';
  turnId: string;
  state: 'pending' | 'delivered' | 'failed';
  createdAt: string;
  attempts: { at: string; status?: number; error?: string }[];
};

/** A schedule: exactly one of `at` (ISO 8601 with its offset) and `cron` (five fields, in `timezone`, UTC by default). */
export type ScheduleInput = {
  messages: (UserMessage | SystemMessage)[];
  at?: string;
  cron?: string;
  timezone?: string;
  tools?: ClientTool[];
  model?: string;
};
export type Schedule = Omit<ScheduleInput, 'model'> & {
  scheduleId: string;
  model: string;
  createdAt: string;
  nextRunAt: string | null;
  lastRun?: { turnId: string; status: TurnStatus | 'pruned'; stopReason?: string };
};
