/**
 * How a model's tool call runs: by the tool's kind and trust, then by the session's rules (deny, ask
 * or allow a server tool's call). Calls whose arguments are invalid never wait for anyone: their
 * error goes straight back. And which tools a call offers.
 */
import type { ClientTool } from '../api/turn-request';
import type { ToolSpec } from '../providers/types';
import { verdictFor, type PermissionRule } from '../tools/permission-rules';
import type { ToolRegistry } from '../tools/registry';
import type { ToolExecution } from './events';
import type { AssembledToolCall } from './block-assembler';

export function classifyCall(call: AssembledToolCall, clientTools: ClientTool[], tools: ToolRegistry, rules: PermissionRule[] | undefined): ToolExecution {
  const execution = executionOf(call.name, clientTools, tools);
  if (call.invalidArguments !== undefined) return execution === 'client' ? 'unknown' : execution === 'untrusted' ? 'trusted' : execution;
  const tool = tools.get(call.name);
  if ((execution !== 'trusted' && execution !== 'untrusted') || !tool || !rules?.length) return execution;
  const subject = tool.permissionSubject ? tool.permissionSubject(call.input) : JSON.stringify(call.input);
  const verdict = verdictFor(rules, call.name, subject);
  if (verdict === 'deny') return 'denied';
  if (verdict === 'ask') return 'untrusted';
  if (verdict === 'allow') return 'trusted';
  return execution;
}

/** A call's kind by its tool alone: the client's, a trusted or untrusted server tool, or none known. */
export function executionOf(name: string, clientTools: ClientTool[], tools: ToolRegistry): ToolExecution {
  if (clientTools.some((tool) => tool.name === name)) return 'client';
  const tool = tools.get(name);
  if (!tool) return 'unknown';
  return tool.trust ? 'trusted' : 'untrusted';
}

/** The tools a model call offers: the server's, then the client's (a client tool without a schema takes any object). */
export function toolSpecs(tools: ToolRegistry, clientTools: ClientTool[]): ToolSpec[] {
  const client = clientTools.map((tool): ToolSpec => ({ name: tool.name, description: tool.description ?? '', parameters: tool.parameters ?? { type: 'object', properties: {} } }));
  return [...tools.specs(), ...client];
}
