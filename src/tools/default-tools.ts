/** The default agent's server tools (CONTRACT section 3). */
import { calculatorTool } from './calculator';
import { countToTool } from './count-to';
import { currentTimeTool } from './current-time';
import { memoryListTool } from './memory-list';
import { memorySaveTool } from './memory-save';
import { createToolRegistry } from './registry';
import { renderChartTool } from './render-chart';

/** The four of CONTRACT section 3, and two that show progress and images (seed 001's CUSTOM, DATA_BLOCK). */
export const DEFAULT_TOOLS = [calculatorTool, currentTimeTool, memorySaveTool, memoryListTool, countToTool, renderChartTool];

export const defaultTools = createToolRegistry(DEFAULT_TOOLS);
