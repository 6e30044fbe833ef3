/**
 * The server tools of a session's turns: the built-in ones, and the tools of the deployment's MCP
 * servers, whose lists this session's toolbox keeps for `MCP_LIST_TTL_SECONDS`. A sub-agent's lack
 * `agent_spawn` (one level, no recursion).
 */
import type { Config } from '../config';
import { DEFAULT_TOOLS, defaultTools, SUBAGENT_TOOLS, subagentTools } from '../tools/default-tools';
import type { McpToolbox } from '../tools/mcp/mcp-toolbox';
import { createToolRegistry, type Toolset } from '../tools/registry';

export class Toolsets {
  private mcp: McpToolbox | undefined;

  async forTurn(config: Config, subagent: boolean): Promise<Toolset> {
    if (!config.mcp) return { registry: subagent ? subagentTools : defaultTools, close: async () => {} };
    // Loaded on first use: a deployment without MCP servers never evaluates the MCP client.
    const { McpToolbox } = await import('../tools/mcp/mcp-toolbox');
    this.mcp ??= new McpToolbox(config.mcp);
    const turn = await this.mcp.forTurn();
    return { registry: createToolRegistry([...(subagent ? SUBAGENT_TOOLS : DEFAULT_TOOLS), ...turn.tools]), close: () => turn.close() };
  }
}
