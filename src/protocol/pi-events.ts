/**
 * The wire shapes of the pi agent's events (docs/pi-and-agui.md; `@mariozechner/pi-agent-core` and
 * `@mariozechner/pi-ai`), written out here so the Worker does not depend on those packages. A test
 * checks at compile time that they are assignable to the published types.
 */

export type PiTextContent = { type: 'text'; text: string; textSignature?: string };
export type PiThinkingContent = { type: 'thinking'; thinking: string; thinkingSignature?: string; redacted?: boolean };
export type PiImageContent = { type: 'image'; data: string; mimeType: string };
export type PiToolCall = { type: 'toolCall'; id: string; name: string; arguments: Record<string, unknown>; thoughtSignature?: string };

export type PiUsage = {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  cost: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
};

export type PiStopReason = 'stop' | 'length' | 'toolUse' | 'error' | 'aborted';

export type PiUserMessage = { role: 'user'; content: string | (PiTextContent | PiImageContent)[]; timestamp: number };
export type PiAssistantMessage = {
  role: 'assistant';
  content: (PiTextContent | PiThinkingContent | PiToolCall)[];
  api: string;
  provider: string;
  model: string;
  usage: PiUsage;
  stopReason: PiStopReason;
  errorMessage?: string;
  timestamp: number;
};
export type PiToolResultMessage = {
  role: 'toolResult';
  toolCallId: string;
  toolName: string;
  content: (PiTextContent | PiImageContent)[];
  details?: unknown;
  isError: boolean;
  timestamp: number;
};
export type PiMessage = PiUserMessage | PiAssistantMessage | PiToolResultMessage;

export type PiAssistantMessageEvent =
  | { type: 'text_start'; contentIndex: number; partial: PiAssistantMessage }
  | { type: 'text_delta'; contentIndex: number; delta: string; partial: PiAssistantMessage }
  | { type: 'text_end'; contentIndex: number; content: string; partial: PiAssistantMessage }
  | { type: 'thinking_start'; contentIndex: number; partial: PiAssistantMessage }
  | { type: 'thinking_delta'; contentIndex: number; delta: string; partial: PiAssistantMessage }
  | { type: 'thinking_end'; contentIndex: number; content: string; partial: PiAssistantMessage }
  | { type: 'toolcall_start'; contentIndex: number; partial: PiAssistantMessage }
  | { type: 'toolcall_delta'; contentIndex: number; delta: string; partial: PiAssistantMessage }
  | { type: 'toolcall_end'; contentIndex: number; toolCall: PiToolCall; partial: PiAssistantMessage };

/** What a tool execution gave, as pi's `AgentToolResult`. */
export type PiToolResult = { content: (PiTextContent | PiImageContent)[]; details: Record<string, unknown> };

export type PiAgentEvent =
  | { type: 'agent_start' }
  | { type: 'agent_end'; messages: PiMessage[] }
  | { type: 'turn_start' }
  | { type: 'turn_end'; message: PiAssistantMessage; toolResults: PiToolResultMessage[] }
  | { type: 'message_start'; message: PiMessage }
  | { type: 'message_update'; message: PiAssistantMessage; assistantMessageEvent: PiAssistantMessageEvent }
  | { type: 'message_end'; message: PiMessage }
  | { type: 'tool_execution_start'; toolCallId: string; toolName: string; args: Record<string, unknown> }
  | { type: 'tool_execution_update'; toolCallId: string; toolName: string; args: Record<string, unknown>; partialResult: PiToolResult }
  | { type: 'tool_execution_end'; toolCallId: string; toolName: string; result: PiToolResult; isError: boolean };

/**
 * The events of `POST /api/stream`, the model proxy that pi's `streamProxy` reads: pi-ai's assistant
 * message events without their `partial` (the client rebuilds it), as pi-agent-core's
 * `ProxyAssistantMessageEvent`.
 */
export type PiProxyEvent =
  | { type: 'start' }
  | { type: 'text_start'; contentIndex: number }
  | { type: 'text_delta'; contentIndex: number; delta: string }
  | { type: 'text_end'; contentIndex: number; contentSignature?: string }
  | { type: 'thinking_start'; contentIndex: number }
  | { type: 'thinking_delta'; contentIndex: number; delta: string }
  | { type: 'thinking_end'; contentIndex: number; contentSignature?: string }
  | { type: 'toolcall_start'; contentIndex: number; id: string; toolName: string }
  | { type: 'toolcall_delta'; contentIndex: number; delta: string }
  | { type: 'toolcall_end'; contentIndex: number }
  | { type: 'done'; reason: 'stop' | 'length' | 'toolUse'; usage: PiUsage }
  | { type: 'error'; reason: 'aborted' | 'error'; errorMessage?: string; usage: PiUsage };
