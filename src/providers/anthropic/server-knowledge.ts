/**
 * What a Messages API server and model told us in their refusals, kept for the isolate's life:
 * - `outputLimit`: the model's own output limit. `ANTHROPIC_MAX_TOKENS` (8192 by default) is over
 *   some models' own, Claude 3 Haiku's and Opus's 4096, and the API refuses such a call
 *   ("max_tokens: 8192 > 4096, which is the maximum allowed number of output tokens for
 *   claude-3-haiku-20240307"): every turn on them would fail. Calls go within it.
 * - `refusedTools`: tools whose schemas the API refused (`refused-tools.ts`), left out.
 * - `noToolChoice`: no `tool_choice`, for an Anthropic-compatible server that refuses the `none` a
 *   turn's last call sends past its tool rounds (the API added it late): such a call's tool calls
 *   do not run anyway.
 * - `thinking`, where `ANTHROPIC_THINKING_BUDGET` asks for thinking: `adaptive` for a model that takes
 *   no budget (Claude Opus 4.7 and later: "\"thinking.type.enabled\" is not supported for this
 *   model. Use \"thinking.type.adaptive\""), `off` for one without thinking ("'claude-3-5-haiku-20241022'
 *   does not support thinking"). Either refusal failed every turn on such a model.
 * The call a refusal answered is sent again with what it taught.
 */
import { BoundedMap } from '../../lib/bounded-map';
import { withRefusedTool } from '../refused-tools';

export type ServerKnowledge = { outputLimit?: number; refusedTools?: string[]; thinking?: 'adaptive' | 'off'; noToolChoice?: boolean };

const OUTPUT_LIMIT = /max_tokens: \d+ > (\d+), which is the maximum allowed number of output tokens/;
const ADAPTIVE_ONLY = /thinking\.type\.enabled\W*is not supported|use \W*thinking\.type\.adaptive/i;
const NO_THINKING = /does not support thinking/i;

const known = new BoundedMap<string, ServerKnowledge>(256);

export function knowledgeOf(server: string): ServerKnowledge {
  return known.get(server) ?? {};
}

/** What a refused call was sent, as far as a refusal can teach about it. */
export type SentCall = { maxTokens: number; tools: string[]; thinking?: string; toolChoice: boolean };

/**
 * What a refusal of a call sent as `before` taught teaches beyond it, remembered; undefined when it
 * teaches nothing.
 */
export function learnFromRefusal(server: string, before: ServerKnowledge, sent: SentCall, detail: string): ServerKnowledge | undefined {
  const taught = outputLimit(sent, detail) ?? withRefusedTool(before.refusedTools, detail, sent.tools) ?? thinkingTaken(sent, detail) ?? (sent.toolChoice && /tool_choice/.test(detail) ? { noToolChoice: true } : undefined);
  if (!taught) return undefined;
  const learnt = { ...before, ...taught };
  known.set(server, learnt);
  return learnt;
}

function outputLimit(sent: SentCall, detail: string): ServerKnowledge | undefined {
  const limit = Number(OUTPUT_LIMIT.exec(detail)?.[1]);
  return limit > 0 && limit < sent.maxTokens ? { outputLimit: limit } : undefined;
}

/** Adaptive thinking for a model that refuses a budget; none for one that does not think. */
function thinkingTaken(sent: SentCall, detail: string): ServerKnowledge | undefined {
  if (sent.thinking === 'enabled' && ADAPTIVE_ONLY.test(detail)) return { thinking: 'adaptive' };
  return sent.thinking !== undefined && NO_THINKING.test(detail) ? { thinking: 'off' } : undefined;
}
