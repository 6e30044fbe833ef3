/**
 * The AG-UI events this service sends (`@ag-ui/core` 1.0), written out so that the Worker does not
 * depend on the package; the tests validate every event with the package's own schemas.
 */

export type AguiContentPart = { type: 'text'; text: string } | { type: 'image'; source: { type: 'data'; value: string; mimeType: string } | { type: 'url'; value: string } };

export type AguiInterrupt = {
  id: string;
  reason: string;
  message: string;
  toolCallId: string;
  responseSchema: Record<string, unknown>;
  metadata: { toolName: string; input: Record<string, unknown> };
};

export type AguiTokenUsage = {
  provider: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  reasoningTokens: number;
  cachedInputTokens: number;
  cacheWriteInputTokens: number;
};

export type AguiOutcome =
  | { type: 'success'; pendingToolCallIds?: string[] }
  | { type: 'interrupt'; interrupts: AguiInterrupt[] }
  | { type: 'cancelled' };

export type AguiEvent =
  | { type: 'RUN_STARTED'; threadId: string; runId: string }
  | { type: 'RUN_FINISHED'; threadId: string; runId: string; outcome: AguiOutcome; result: { turnId: string; stopReason: string }; usage: AguiTokenUsage[] }
  | { type: 'RUN_ERROR'; message: string; code: string }
  | { type: 'TEXT_MESSAGE_START'; messageId: string; role: 'assistant' }
  | { type: 'TEXT_MESSAGE_CONTENT'; messageId: string; delta: string }
  | { type: 'TEXT_MESSAGE_END'; messageId: string }
  | { type: 'REASONING_START'; messageId: string }
  | { type: 'REASONING_MESSAGE_START'; messageId: string; role: 'reasoning' }
  | { type: 'REASONING_MESSAGE_CONTENT'; messageId: string; delta: string }
  | { type: 'REASONING_MESSAGE_END'; messageId: string }
  | { type: 'REASONING_END'; messageId: string }
  | { type: 'TOOL_CALL_START'; toolCallId: string; toolCallName: string; parentMessageId: string }
  | { type: 'TOOL_CALL_ARGS'; toolCallId: string; delta: string }
  | { type: 'TOOL_CALL_END'; toolCallId: string }
  | { type: 'TOOL_CALL_RESULT'; messageId: string; toolCallId: string; content: string | AguiContentPart[]; role: 'tool' }
  | { type: 'CUSTOM'; name: string; value: unknown };
