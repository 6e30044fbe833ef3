/** The default agent's server tools (docs/demo-model.md and the server tools). */
import { agentSpawnTool } from './agent-spawn';
import { calculatorTool } from './calculator';
import { countToTool } from './count-to';
import { currentTimeTool } from './current-time';
import { memoryListTool } from './memory-list';
import { memorySaveTool } from './memory-save';
import { createToolRegistry } from './registry';
import { renderChartTool } from './render-chart';

/**
 * The four of the the server tools (docs/demo-model.md), two that show progress and images (the Harness protocol's CUSTOM and data
 * events), and `agent_spawn` last. A sub-agent gets them all but `agent_spawn`: it cannot spawn.
 */
export const SUBAGENT_TOOLS = [calculatorTool, currentTimeTool, memorySaveTool, memoryListTool, countToTool, renderChartTool];
export const DEFAULT_TOOLS = [...SUBAGENT_TOOLS, agentSpawnTool];

export const defaultTools = createToolRegistry(DEFAULT_TOOLS);
export const subagentTools = createToolRegistry(SUBAGENT_TOOLS);
