/**
 * The server tools of a session's turns: the built-in ones, and the tools of the deployment's MCP
 * servers, whose lists the isolate keeps for `MCP_LIST_TTL_SECONDS`, one toolbox for every session
 * it holds (decision 47). A sub-agent's lack `agent_spawn` (one level, no recursion).
 */
import type { Config } from '../config';
import { DEFAULT_TOOLS, defaultTools, SUBAGENT_TOOLS, subagentTools } from '../tools/default-tools';
import type { McpSettings, McpToolbox } from '../tools/mcp/mcp-toolbox';
import { createToolRegistry, type Toolset } from '../tools/registry';

/**
 * The isolate's toolbox of each MCP configuration (the deployment's, read once per `env`): the lists
 * it keeps serve every session's turns, so that a new session, or one whose object was evicted, does
 * not list every server again before its first model request.
 */
const toolboxes = new WeakMap<McpSettings, McpToolbox>();

export async function toolsForTurn(config: Config, subagent: boolean): Promise<Toolset> {
  if (!config.mcp) return { registry: subagent ? subagentTools : defaultTools, close: async () => {} };
  // Loaded on first use: a deployment without MCP servers never evaluates the MCP client.
  const { McpToolbox } = await import('../tools/mcp/mcp-toolbox');
  let toolbox = toolboxes.get(config.mcp);
  if (!toolbox) toolboxes.set(config.mcp, (toolbox = new McpToolbox(config.mcp)));
  const turn = await toolbox.forTurn();
  return { registry: createToolRegistry([...(subagent ? SUBAGENT_TOOLS : DEFAULT_TOOLS), ...turn.tools]), close: () => turn.close() };
}
