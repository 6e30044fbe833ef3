/** The server tools of a deployment, by name, with the JSON Schemas the models are offered. */
import * as z from '../lib/zod';
import type { ToolSpec } from '../providers/types';
import type { ServerTool } from './types';

export type ToolRegistry = {
  get(name: string): ServerTool | undefined;
  names(): string[];
  specs(): ToolSpec[];
};

/** The server tools of one turn, and how to release what they hold (MCP connections) when it ends. */
export type Toolset = { registry: ToolRegistry; close(): Promise<void> };

export function createToolRegistry(tools: ServerTool<any>[]): ToolRegistry {
  const byName = new Map<string, ServerTool>();
  for (const tool of tools) {
    if (byName.has(tool.name)) throw new Error(`Two server tools are named "${tool.name}".`);
    byName.set(tool.name, tool as ServerTool);
  }
  // The JSON Schemas are made when a model is first offered the tools, not when the module loads:
  // the built-in registries are made at startup, which every new isolate pays (docs/operations.md).
  let specs: ToolSpec[] | undefined;
  return {
    get: (name) => byName.get(name),
    names: () => [...byName.keys()],
    specs: () => (specs ??= tools.map(specOf)),
  };
}

/**
 * Each tool's spec, made once for the tool, whichever registry holds it: with MCP servers each turn
 * has a registry of its own (the built-in tools and the servers' lists), and the built-in tools'
 * specs, and what the providers make of them (`toolParameters`), are the same objects every turn.
 */
const made = new WeakMap<ServerTool<any>, ToolSpec>();

function specOf(tool: ServerTool<any>): ToolSpec {
  let spec = made.get(tool);
  if (!spec) {
    spec = { name: tool.name, description: tool.description, parameters: tool.parameters ?? writeParameters(tool.inputSchema), ...(tool.remote ? { remote: true as const } : {}) };
    made.set(tool, spec);
  }
  return spec;
}

/** The JSON Schema a tool's input schema offers the model (the built-in tools' are written ahead: `built-in-parameters.ts`). */
export function writeParameters(inputSchema: z.ZodMiniType): Record<string, unknown> {
  const { $schema: _dialect, ...parameters } = z.toJSONSchema(inputSchema, { io: 'input' }) as Record<string, unknown>;
  return parameters;
}
