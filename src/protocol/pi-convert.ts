/**
 * Our shapes in pi's words (docs/pi-and-agui.md): content blocks, usage, stop reasons, and the provider names.
 * Pure, shared by the `stream: "pi"` encoder and the `/api/stream` proxy.
 */
import type { AssistantBlock, ImageBlock, TextBlock, ToolResultContent, UserContent } from '../api/content';
import type { MessageFinish } from '../agent/events';
import type { Usage } from '../agent/usage';
import type { PiAssistantMessage, PiImageContent, PiStopReason, PiTextContent, PiThinkingContent, PiToolCall, PiUsage } from './pi-events';

/** Our provider names and pi's, where they differ (pi's `cloudflare-workers-ai` is our `workers-ai`). */
const PI_PROVIDER: Record<string, string> = { 'workers-ai': 'cloudflare-workers-ai' };
/** The API family pi names for each of our providers (what its `Model.api` says). */
const PI_API: Record<string, string> = {
  openai: 'openai-completions',
  anthropic: 'anthropic-messages',
  'workers-ai': 'openai-completions',
  demo: 'demo',
};

/** `provider:model` as pi's `{provider, api, model}`. */
export function piModelOf(modelId: string): { provider: string; api: string; model: string } {
  const at = modelId.indexOf(':');
  const provider = modelId.slice(0, at);
  return { provider: PI_PROVIDER[provider] ?? provider, api: PI_API[provider] ?? provider, model: modelId.slice(at + 1) };
}

/** pi's provider name as ours (`cloudflare-workers-ai` → `workers-ai`). */
export function ourProviderOf(piProvider: string): string {
  for (const [ours, theirs] of Object.entries(PI_PROVIDER)) if (theirs === piProvider) return ours;
  return piProvider;
}

/**
 * Our usage counts cache reads and writes inside `inputTokens`; pi counts them beside `input`. Cost
 * is 0: this service does not price models.
 */
export function toPiUsage(usage: Usage): PiUsage {
  const input = Math.max(0, usage.inputTokens - usage.cachedInputTokens - usage.cacheWriteInputTokens);
  return {
    input,
    output: usage.outputTokens,
    cacheRead: usage.cachedInputTokens,
    cacheWrite: usage.cacheWriteInputTokens,
    totalTokens: usage.inputTokens + usage.outputTokens,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
}

/** docs/pi-and-agui.md: end_turn→stop, tool_use→toolUse, max_tokens→length, cancel→aborted, refusal→error. */
export function piStopReason(finish: MessageFinish): PiStopReason {
  switch (finish) {
    case 'end_turn':
    case 'paused':
      return 'stop';
    case 'tool_use':
      return 'toolUse';
    case 'max_tokens':
      return 'length';
    case 'cancelled':
      return 'aborted';
    case 'refusal':
      return 'error';
  }
}

function piMedia(block: TextBlock | ImageBlock): PiTextContent | PiImageContent {
  if (block.type === 'text') return { type: 'text', text: block.text };
  // pi's images are inline data; an image by URL is named in text.
  return 'data' in block ? { type: 'image', data: block.data, mimeType: block.mimeType } : { type: 'text', text: `[image: ${block.url}]` };
}

export function toPiUserContent(content: UserContent): string | (PiTextContent | PiImageContent)[] {
  return typeof content === 'string' ? content : content.map(piMedia);
}

export function toPiToolContent(content: ToolResultContent): (PiTextContent | PiImageContent)[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content.map(piMedia);
}

export function toPiAssistantContent(content: string | AssistantBlock[]): PiAssistantMessage['content'] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return content.map((block): PiTextContent | PiThinkingContent | PiToolCall => {
    if (block.type === 'text') return { type: 'text', text: block.text };
    if (block.type === 'tool_use') return { type: 'toolCall', id: block.toolCallId, name: block.name, arguments: block.input, ...(block.signature !== undefined && { thoughtSignature: block.signature }) };
    const thinking: PiThinkingContent = { type: 'thinking', thinking: block.thinking };
    if (block.signature !== undefined) thinking.thinkingSignature = block.signature;
    if (block.redacted) thinking.redacted = true;
    return thinking;
  });
}
