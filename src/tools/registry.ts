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

function specOf(tool: ServerTool<any>): ToolSpec {
  const { $schema: _ignored, ...parameters } = tool.parameters ?? (z.toJSONSchema(tool.inputSchema, { io: 'input' }) as Record<string, unknown>);
  return { name: tool.name, description: tool.description, parameters, ...(tool.remote ? { remote: true as const } : {}) };
}
