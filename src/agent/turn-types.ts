/**
 * What a turn takes and gives: its input (the loaded history, the answers, the new messages), what
 * it runs on (the model, the tools, the rules, the bounds), and how it ended.
 */
import type { HistoryMessage, SystemMessage, UserMessage } from '../api/content';
import type { ClientTool } from '../api/turn-request';
import type { ModelHandle } from '../providers/types';
import type { PermissionRule } from '../tools/permission-rules';
import type { ToolRegistry } from '../tools/registry';
import type { ToolContext } from '../tools/types';
import type { Summary } from './context/compaction';
import type { ContextSettings } from './context/context-window';
import type { Emit, ModelCallUsage, PendingToolCall, StopReason, ToolAnswer, TurnError } from './events';
import type { RetryPolicy } from './retry-policy';
import type { Usage } from './usage';

/** An answer the request brought, matched by the session to the pending call it answers. */
export type ResolvedAnswer = { call: PendingToolCall; answer: ToolAnswer };

export type TurnInput = {
  turnId: string;
  /** The stored history before this turn after the latest summary, in order. */
  history: HistoryMessage[];
  /**
   * The tool call ids of `history`'s messages (or more), where the session keeps them: asked for when
   * the model first names a call, in place of a scan of every message (`usedToolCallIds`).
   */
  historyCallIds?: () => ReadonlySet<string> | undefined;
  /** The latest compaction's summary of what came before `history`, and the session's calibration. */
  context: { summary?: Summary; calibration: number };
  /** Answers to every pending call, in the order of the calls. */
  answers: ResolvedAnswer[];
  newMessages: (UserMessage | SystemMessage)[];
  clientTools: ClientTool[];
};

export type TurnDeps = {
  model: ModelHandle;
  tools: ToolRegistry;
  toolContext: Omit<ToolContext, 'signal'>;
  emit: Emit;
  signal: AbortSignal;
  systemPrompt: string;
  maxIterations: number;
  toolTimeoutMs: number;
  /** Server tool calls that run at once (default: all of a batch). */
  toolConcurrency?: number;
  retry: RetryPolicy;
  context: ContextSettings;
  /** Whether the session used a tool call id in messages this turn did not load. */
  isToolCallIdUsed?: (id: string) => boolean;
  newId: (prefix: string) => string;
  now: () => number;
  /** Sampling the request asked for (the Harness door's `chatModel.temperature`). */
  sampling?: { temperature?: number };
  /** The session's lasting permission rules, applied to every call of a server tool. */
  rules?: PermissionRule[];
  /** Tokens (input and output) the turn may spend before it stops for the go-ahead of a next request. */
  tokenBudget?: number;
  /**
   * Each model call's usage as it is spent (a summary's included), for whoever counts it beyond the
   * turn: told at once, never held (a tool may read the user's totals), so a host that writes it
   * writes it after the task, where it would hold a request sent early (`requestSent`).
   */
  spent?: (call: ModelCallUsage) => void;
  /** Before each model call: an error when the user may call no model now (a daily quota), which stops the turn. */
  quota?: () => TurnError | undefined;
  /**
   * User messages sent while the turn runs (ifBusy "steer"): `take` hands them to the loop at a step
   * boundary, `told` comes in the task the loop tells them, so that a host keeping them elsewhere
   * until then (a queue) lets them go in the same commit as their events.
   */
  steering?: { take(): UserMessage[]; told(): void };
  /**
   * The host's part before the turn's first event (storing what the turn opens with), awaited once,
   * before it. `sent`: the first model request went already, so that writes made here, in a later
   * task, do not hold it (a Durable Object sends nothing while a write of its own is unconfirmed).
   * A rejection ends the turn before any event.
   */
  opening?: (sent: boolean) => Promise<void>;
  /**
   * The host's wait after a later step's request went before what the step that ran its tools told
   * (its assistant message, the tools' results: held until then, `held-events.ts`), so that the writes
   * those make, after it, do not hold the request. Unset: nothing is held. Never rejects.
   */
  requestSent?: () => Promise<void>;
};

export type TurnOutcome = {
  stopReason: StopReason;
  usage: Usage;
  modelCalls: ModelCallUsage[];
  error?: TurnError;
  maxIterationsReached?: true;
};
