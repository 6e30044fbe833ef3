/**
 * What the agent loop needs from a model provider. Platform-free: providers take `fetch` and an
 * `AbortSignal`, never `env` or a Request.
 *
 * The written contract of `stream()`: it never throws and never rejects. It yields its parts in
 * batches, in order: the parts of one network read together, never an empty batch (a long answer's
 * reads hold hundreds of deltas, and each item an async iterator hands on costs more than handling a
 * delta, bench/PROFILE.md, "Fewer hops per delta"). Every failure, before or after the first byte,
 * arrives as one `error` part that is the last part of its batch and ends the stream; a stream that
 * ends without `finish` or `error` is treated by the loop as cut.
 */
import type { HistoryMessage } from '../api/content';
import type { FinishReason, ModelPurpose, Usage } from './vocabulary';

export type ToolSpec = {
  name: string;
  description: string;
  /** A JSON Schema of type "object". */
  parameters: Record<string, unknown>;
  /** A remote MCP server's tool: left out first where a server takes fewer tools than a call offers. */
  remote?: true;
};

export type ModelRequest = {
  model: string;
  system: string;
  messages: HistoryMessage[];
  tools: ToolSpec[];
  /**
   * `none`: the tools are there for the history's sake, and the model may not call them (a turn's
   * last call, past its tool rounds). The Messages API refuses a history of tool calls without tools
   * ("Requests which include `tool_use` or `tool_result` blocks must define tools").
   */
  toolChoice?: 'none';
  signal: AbortSignal;
  /** What the call is for (an answer when unset): a provider reads this, never the prompt's words. */
  purpose?: ModelPurpose;
  /** How many messages the first of `messages` stands for, when it is a summary of them. */
  summarizedMessages?: number;
  /** Sampling the caller asked for (pi's `streamProxy` options); the deployment's defaults otherwise. */
  temperature?: number;
  maxTokens?: number;
};

export type ModelStreamPart =
  | { type: 'text-delta'; delta: string }
  | { type: 'thinking-delta'; delta: string }
  | { type: 'thinking-signature'; signature: string }
  /** Thinking the provider keeps encrypted: stored as it came and sent back verbatim. */
  | { type: 'redacted-thinking'; data: string }
  /** The provider says the current block ended (where it marks blocks: Anthropic). */
  | { type: 'block-end' }
  /** A tool call's pieces, keyed by the provider's index; `id` and `name` come with the first piece. */
  /** `signature`: the provider's opaque signature of the call (Gemini's thought signature), to be sent back with it. */
  | { type: 'tool-call-delta'; index: number; id?: string; name?: string; argumentsDelta: string; signature?: string }
  | { type: 'usage'; usage: Partial<Usage> }
  | { type: 'finish'; reason: FinishReason }
  /**
   * `retryable`: the same request may succeed if sent again (a 429, a 5xx, a network fault, a
   * timeout); `retryAfterMs`: how long the server asked us to wait; `refused`: the server refused
   * the request as it was made (a 400, 413 or 422), so only another request may succeed; `window`:
   * for a `context_overflow`, the context window the server named, where it named one.
   */
  | { type: 'error'; code: string; message: string; retryable?: boolean; retryAfterMs?: number; refused?: boolean; window?: number };

export interface ModelProvider {
  stream(request: ModelRequest): AsyncIterable<ModelStreamPart[]>;
}

/** A provider bound to one of its models: what a turn runs on. */
export type ModelHandle = {
  /** `provider:model`, as configured and as reported in events. */
  id: string;
  model: string;
  provider: ModelProvider;
};
