/**
 * The one internal event stream of a turn. The loop emits it; every wire format (the turns API's three
 * modes now; the Harness, chat-socket, pi, AG-UI, A2A and MCP doors) and the session's persistence are consumers of it.
 *
 * Vocabulary: a *turn* is one `POST .../turns` (the Harness protocol's run, pi's agent run). A *step* is one model
 * call plus the tool executions it asks for (pi's turn). A *block* is one content block of an
 * assistant message, with a stable `blockId`, opened and closed exactly once.
 *
 * Promises: `turn-start` is first and `turn-stop` is last, exactly once each; every `*-start` of a
 * block has its `*-end` before the `model-call-end` of its call; an `assistant-message` is emitted
 * only for a model call that finished, so a failed call never leaves a half message behind.
 */
import type { AssistantMessage, SystemMessage, ToolResultContent, UserMessage } from '../api/content';
import type { PermissionRule } from '../tools/permission-rules';
import type { Usage } from './usage';

export type StopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'refusal' | 'error';

/** Why a model call ended: the providers' word (`src/providers/vocabulary.ts`). */
export type { FinishReason } from '../providers/vocabulary';
import type { FinishReason } from '../providers/vocabulary';

/** Why an assistant message ended: the model's reason, or a cancel that kept its partial text. */
export type MessageFinish = FinishReason | 'cancelled';

export type TurnError = { code: string; message: string };

/** `purpose: "compaction"` marks the side calls that summarise the history. */
export type ModelCallUsage = { model: string; usage: Usage; purpose?: 'compaction' };

/**
 * How a tool call is carried out: inline, after the user's permission, by the client, or not at all
 * (`unknown`: no such tool; `denied`: a permission rule refuses it).
 */
export type ToolExecution = 'trusted' | 'untrusted' | 'client' | 'unknown' | 'denied';

/** A call that the turn leaves waiting for the client. */
export type PendingToolCall = {
  toolCallId: string;
  name: string;
  input: Record<string, unknown>;
  /** `client`: the client runs it and posts a `tool` message; `permission`: the user grants or denies it. */
  awaiting: 'client' | 'permission';
};

export type ToolResultState = 'success' | 'error' | 'denied' | 'interrupted';

/** An answer the request brought for a call that was pending, echoed before the loop goes on. */
export type ToolAnswer =
  | { kind: 'result'; content: ToolResultContent; isError: boolean }
  /**
   * `input`: the arguments the user edited before granting (the call runs with them); `rules`: the
   * lasting permission rules the user added with the answer (kept by the session).
   */
  | { kind: 'permission'; granted: boolean; reason?: string; input?: Record<string, unknown>; rules?: PermissionRule[] };

export type AgentEvent =
  /** `at`: when the turn began (epoch ms), the time of the messages it brings (pi's `timestamp`). */
  | { type: 'turn-start'; turnId: string; model: string; at: number }
  | { type: 'input-message'; message: UserMessage | SystemMessage }
  | { type: 'tool-answer'; toolCallId: string; name: string; input: Record<string, unknown>; answer: ToolAnswer }
  | { type: 'step-start'; step: number }
  /** `at`: when the call was sent (epoch ms), the time of the assistant message it makes. */
  | { type: 'model-call-start'; callId: string; step: number; model: string; toolsOffered: boolean; estimatedInputTokens: number; at: number }
  /**
   * The oldest part of the history was summarised to make room: `messagesSummarized` more messages
   * (`totalSummarized` in all), the prompt going from `tokensBefore` to `tokensAfter` (estimates).
   */
  | {
      type: 'context-compacted';
      summary: string;
      messagesSummarized: number;
      totalSummarized: number;
      tokensBefore: number;
      tokensAfter: number;
      reason: 'threshold' | 'overflow';
    }
  | { type: 'text-start'; callId: string; blockId: string; contentIndex: number }
  | { type: 'text-delta'; blockId: string; delta: string }
  | { type: 'text-end'; blockId: string; text: string; incomplete?: true }
  | { type: 'thinking-start'; callId: string; blockId: string; contentIndex: number }
  | { type: 'thinking-delta'; blockId: string; delta: string }
  | { type: 'thinking-end'; blockId: string; thinking: string; signature?: string; redacted?: true; incomplete?: true }
  /**
   * `execution`: how a call of this tool would be carried out, known from its name as its arguments
   * start to stream (front-ends show a confirmation prompt early); the `tool-call` event has the final word.
   */
  | {
      type: 'tool-input-start';
      callId: string;
      blockId: string;
      contentIndex: number;
      toolCallId: string;
      name: string;
      execution: ToolExecution;
    }
  | { type: 'tool-input-delta'; blockId: string; toolCallId: string; delta: string }
  | {
      type: 'tool-input-end';
      blockId: string;
      toolCallId: string;
      name: string;
      input: Record<string, unknown>;
      incomplete?: true;
    }
  /** A call that failed before any output, about to be sent again after `delayMs`. */
  | { type: 'model-call-retry'; callId: string; attempt: number; delayMs: number; error: TurnError }
  | {
      type: 'model-call-end';
      callId: string;
      usage: Usage;
      durationMs: number;
      finishReason?: FinishReason;
      error?: TurnError;
    }
  | { type: 'assistant-message'; message: AssistantMessage; finishReason: MessageFinish; usage: Usage }
  | { type: 'tool-call'; toolCallId: string; name: string; input: Record<string, unknown>; execution: ToolExecution }
  | { type: 'tool-execution-start'; toolCallId: string; name: string; input: Record<string, unknown> }
  /**
   * An event of a sub-agent a tool runs (`agent_spawn`), forwarded as it happens: `source` names it
   * (`main/<agentId>`), `sessionId` is its own session.
   */
  | { type: 'subagent-event'; toolCallId: string; source: string; sessionId: string; event: AgentEvent }
  /** A sub-agent's session, given to the user to open (`expose_to_user`). */
  | { type: 'subagent-exposed'; toolCallId: string; subagentId: string; agentId: string; sessionId: string; label: string }
  /** A running tool's report of how far it has come (`progress`: a percentage). */
  | { type: 'tool-progress'; toolCallId: string; name: string; input: Record<string, unknown>; progress: number; detail: string }
  | {
      type: 'tool-execution-end';
      toolCallId: string;
      name: string;
      content: ToolResultContent;
      isError: boolean;
      state: ToolResultState;
      /** When the result was made (epoch ms). */
      at: number;
    }
  | { type: 'step-end'; step: number }
  | { type: 'iteration-limit'; maxIterations: number; step: number }
  | { type: 'turn-suspend'; pending: PendingToolCall[] }
  | {
      type: 'turn-stop';
      turnId: string;
      stopReason: StopReason;
      /** When the turn stopped (epoch ms); a log stored before it was kept has none. */
      at: number;
      /** Summed over the turn's model calls; `modelCalls` has each call's own. */
      usage: Usage;
      modelCalls: ModelCallUsage[];
      error?: TurnError;
      /** The loop hit MAX_ITERATIONS and made its last call without tools. */
      maxIterationsReached?: true;
      /** The session's token calibration after this turn's calls (kept for the next turn). */
      calibration: number;
      /**
       * A call of the turn was refused, then sent without the images and thinking of the messages
       * before the last user message (`earlier-parts.ts`): later turns leave them out at once.
       */
      earlierPartsLeftOut?: true;
    };

export type Emit = (event: AgentEvent) => void;
