/** The default agent's server tools (CONTRACT section 3). */
import { calculatorTool } from './calculator';
import { currentTimeTool } from './current-time';
import { memoryListTool } from './memory-list';
import { memorySaveTool } from './memory-save';
import { createToolRegistry } from './registry';

export const DEFAULT_TOOLS = [calculatorTool, currentTimeTool, memorySaveTool, memoryListTool];

export const defaultTools = createToolRegistry(DEFAULT_TOOLS);
