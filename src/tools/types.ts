/**
 * What a server tool is: a name, a zod input schema (its JSON Schema is derived for the model), a
 * trust flag, and `execute`. Platform-free: what a tool needs from the session comes in `ToolContext`.
 */
import type { ToolResultContent } from '../api/content';
import type { z } from '../lib/zod';

export type Note = { id: number; text: string; savedAt: string };

/** The session's notes, as `memory_save` and `memory_list` see them. */
export interface NotesStore {
  save(text: string): Note;
  list(): Note[];
}

/** How far a long-running tool has come: a percentage, and a line for the user. */
export type ToolProgress = { progress: number; detail: string };

/** A sub-agent's run, as `agent_spawn` asks for it. */
export type SubagentTask = { agentId: string; task: string; exposeToUser: boolean; signal: AbortSignal };
/** How a sub-agent's run ended: its session, its last answer, its stop reason. */
export type SubagentOutcome = { subagentId: string; sessionId: string; text: string; stopReason: string };

/**
 * What a sub-agent's run reports while it goes: each of its internal events (forwarded with their
 * source), and that it was made reachable by the user.
 */
export type SubagentReport =
  | { kind: 'event'; source: string; sessionId: string; event: unknown }
  | { kind: 'exposed'; subagentId: string; agentId: string; sessionId: string; label: string };

/** Runs a sub-agent in a session of its own (given by the session's object; none where there is none). */
export type SubagentRunner = (task: SubagentTask, report: (report: SubagentReport) => void) => Promise<SubagentOutcome>;

export type ToolContext = {
  signal: AbortSignal;
  now: () => Date;
  notes: NotesStore;
  /** Reports progress while the tool runs (given by the loop to each call). */
  progress?: (update: ToolProgress) => void;
  /** Runs sub-agents (`agent_spawn`). */
  subagents?: SubagentRunner;
  /** Reports a sub-agent's events (given by the loop to each call). */
  report?: (report: SubagentReport) => void;
};

export interface ServerTool<Input = unknown> {
  name: string;
  description: string;
  /** `true`: runs inline. `false`: the user must grant each call first (the turns API (docs/turns-api.md) "untrusted"). */
  trust: boolean;
  inputSchema: z.ZodMiniType<Input>;
  /**
   * The JSON Schema offered to the model, when it comes as is (an MCP server's) or was written ahead
   * (a built-in tool's: `built-in-parameters.ts`); else made from `inputSchema` when first offered.
   */
  parameters?: Record<string, unknown>;
  /** A remote MCP server's: left out first where a model server takes fewer tools than a turn offers. */
  remote?: true;
  /** What a permission rule's `rule_content` is matched against (see `permission-rules.ts`); else the input as JSON. */
  permissionSubject?(input: Record<string, unknown>): string;
  execute(input: Input, context: ToolContext): Promise<ToolResultContent>;
}

/** An expected failure of a tool; its message is what the model reads. Anything else thrown is too. */
export class ToolError extends Error {}
