/** The default agent's server tools (docs/demo-model.md and the server tools). */
import { agentSpawnTool } from './agent-spawn';
import { calculatorTool } from './calculator';
import { countToTool } from './count-to';
import { currentTimeTool } from './current-time';
import { memoryListTool } from './memory-list';
import { memorySaveTool } from './memory-save';
import { BUILT_IN_PARAMETERS } from './built-in-parameters';
import { createToolRegistry } from './registry';
import { renderChartTool } from './render-chart';
import type { ServerTool } from './types';

/**
 * The four of the server tools (docs/demo-model.md), two that show progress and images (the Harness protocol's CUSTOM and data
 * events), and `agent_spawn` last. A sub-agent gets them all but `agent_spawn`: it cannot spawn.
 */
export const SUBAGENT_TOOLS = [calculatorTool, currentTimeTool, memorySaveTool, memoryListTool, countToTool, renderChartTool].map(writtenAhead);
export const DEFAULT_TOOLS = [...SUBAGENT_TOOLS, writtenAhead(agentSpawnTool)];

export const defaultTools = createToolRegistry(DEFAULT_TOOLS);
export const subagentTools = createToolRegistry(SUBAGENT_TOOLS);

/**
 * A built-in tool with the JSON Schema written ahead for it (`built-in-parameters.ts`): a new isolate
 * does not make it at its first turn. A tool not written yet makes its own when first offered.
 */
function writtenAhead<T extends ServerTool<any>>(tool: T): T {
  const parameters = BUILT_IN_PARAMETERS[tool.name];
  return parameters ? { ...tool, parameters } : tool;
}
