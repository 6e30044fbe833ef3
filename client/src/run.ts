/**
 * `run()`: drives a whole exchange for the developer. Each turn is streamed; when it stops for tool
 * calls, the calls the session waits on are answered: a client tool by its handler, an untrusted
 * server tool by `onPermission`. The answers go in the next turn, until the agent stops for good.
 */
import type { Client } from './client.js';
import type { ClientTool, InputMessage, PendingToolCall, PermissionRule, ToolResultContent, TurnEvent, TurnEventData, Usage } from './types.js';

export type ToolHandler = {
  description?: string;
  /** A JSON Schema of type "object" for the tool's input. */
  parameters?: Record<string, unknown>;
  /** Runs the tool; a throw is the tool's error, sent to the model as such. */
  run: (input: Record<string, unknown>, call: PendingToolCall) => ToolResultContent | Promise<ToolResultContent>;
};

/** The answer to a permission prompt: `input` runs the call with edited arguments; `rules` last. */
export type Permission = { granted: boolean; reason?: string; input?: Record<string, unknown>; rules?: PermissionRule[] };

export type RunOptions = {
  messages: InputMessage[];
  /** The first turn continues from this message on a new branch (an edit; null: a new first message). */
  parentId?: string | null;
  /** The client's tools, by name. */
  tools?: Record<string, ToolHandler>;
  /** Asked for each call of an untrusted server tool. Without it, calls are denied. */
  onPermission?: (call: PendingToolCall) => Permission | Promise<Permission>;
  /** Every event of every turn, as it comes. */
  onEvent?: (event: TurnEvent) => void;
  model?: string;
  mode?: 'delta' | 'message';
  signal?: AbortSignal;
  /** How many turns at most (answers included). */
  maxTurns?: number;
};

export type RunResult = {
  /** How the last turn stopped. */
  stop: TurnEventData['turn_stop'];
  /** The text of the last turn: the agent's answer. */
  text: string;
  /** Every turn's stop, in order. */
  turns: TurnEventData['turn_stop'][];
  /** Summed over the turns. */
  usage: Usage;
};

export async function runExchange(client: Client, sessionId: string, options: RunOptions): Promise<RunResult> {
  const tools: ClientTool[] = Object.entries(options.tools ?? {}).map(([name, tool]) => ({
    name,
    ...(tool.description !== undefined ? { description: tool.description } : {}),
    ...(tool.parameters !== undefined ? { parameters: tool.parameters } : {}),
  }));
  const turns: TurnEventData['turn_stop'][] = [];
  let messages = options.messages;
  for (let turn = 0; turn < (options.maxTurns ?? 20); turn++) {
    let text = '';
    let stop: TurnEventData['turn_stop'] | undefined;
    const branch = turn === 0 && options.parentId !== undefined ? { parentId: options.parentId } : {};
    const input = { messages, ...(tools.length > 0 ? { tools } : {}), ...(options.model ? { model: options.model } : {}), ...branch };
    for await (const event of client.turns.stream(sessionId, input, { mode: options.mode ?? 'delta', ...(options.signal ? { signal: options.signal } : {}) })) {
      options.onEvent?.(event);
      if (event.event === 'text_delta') text += event.data.delta;
      if (event.event === 'text') text += event.data.text;
      if (event.event === 'turn_stop') stop = event.data;
    }
    if (!stop) throw new Error('The turn ended without turn_stop.');
    turns.push(stop);
    if (stop.stopReason !== 'tool_use') return { stop, text, turns, usage: sum(turns) };
    const { pendingToolCalls } = await client.sessions.get(sessionId);
    messages = await Promise.all(pendingToolCalls.map((call) => answer(call, options)));
  }
  throw new Error(`The exchange did not end within ${options.maxTurns ?? 20} turns.`);
}

async function answer(call: PendingToolCall, options: RunOptions): Promise<InputMessage> {
  if (call.awaiting === 'permission') {
    const permission = options.onPermission ? await options.onPermission(call) : { granted: false, reason: 'This client answers no permission prompts.' };
    return {
      role: 'tool_permission',
      toolCallId: call.toolCallId,
      granted: permission.granted,
      ...(permission.reason ? { reason: permission.reason } : {}),
      ...(permission.granted && permission.input ? { input: permission.input } : {}),
      ...(permission.rules?.length ? { rules: permission.rules } : {}),
    };
  }
  const handler = options.tools?.[call.name];
  if (!handler) return { role: 'tool', toolCallId: call.toolCallId, content: `This client has no tool ${call.name}.`, isError: true };
  try {
    return { role: 'tool', toolCallId: call.toolCallId, content: await handler.run(call.input, call) };
  } catch (error) {
    return { role: 'tool', toolCallId: call.toolCallId, content: error instanceof Error ? error.message : String(error), isError: true };
  }
}

function sum(turns: TurnEventData['turn_stop'][]): Usage {
  const total: Usage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, cacheWriteInputTokens: 0, reasoningTokens: 0 };
  for (const { usage } of turns) {
    total.inputTokens += usage.inputTokens;
    total.outputTokens += usage.outputTokens;
    total.cachedInputTokens += usage.cachedInputTokens;
    total.cacheWriteInputTokens += usage.cacheWriteInputTokens;
    total.reasoningTokens += usage.reasoningTokens;
  }
  return total;
}
