/** From a configured `provider:model` to the provider that serves it. */
import { ApiError } from '../lib/errors';
import { createAnthropicProvider } from './anthropic/anthropic-provider';
import { createDemoProvider } from './demo/demo-provider';
import { createOpenAIProvider } from './openai/openai-provider';
import type { ModelHandle } from './types';
import type { UpstreamTimeouts } from './upstream-timer';
import { createWorkersAIProvider, type AiBinding } from './workers-ai/workers-ai-provider';

export const PROVIDERS = ['demo', 'openai', 'anthropic', 'workers-ai'] as const;

/** Platform objects a provider may need, passed in by the session (the core never reads `env`). */
export type ProviderBindings = { ai?: AiBinding };

/** What the providers take of the deployment's configuration (`Config` has it all). */
export type ProviderSettings = {
  openai: { baseUrl: string; apiKey?: string };
  anthropic: { baseUrl: string; apiKey?: string; maxTokens: number; thinkingBudget: number };
  workersAi: { maxTokens: number };
  upstream: { timeouts: UpstreamTimeouts };
};

export function resolveModel(id: string, config: ProviderSettings, bindings: ProviderBindings = {}): ModelHandle {
  const separator = id.indexOf(':');
  const provider = id.slice(0, separator);
  const model = id.slice(separator + 1);
  switch (provider) {
    case 'demo':
      return { id, model, provider: createDemoProvider() };
    case 'openai':
      return {
        id,
        model,
        provider: createOpenAIProvider({ ...config.openai, timeouts: config.upstream.timeouts }),
      };
    case 'anthropic':
      return {
        id,
        model,
        provider: createAnthropicProvider({ ...config.anthropic, timeouts: config.upstream.timeouts }),
      };
    case 'workers-ai':
      if (!bindings.ai) {
        throw new ApiError(500, 'configuration_error', 'The workers-ai provider needs the AI binding: add `[ai] binding = "AI"` to wrangler.toml.');
      }
      return {
        id,
        model,
        provider: createWorkersAIProvider({ ai: bindings.ai, ...config.workersAi, timeouts: config.upstream.timeouts }),
      };
    default:
      throw new ApiError(500, 'configuration_error', `The provider "${provider}" of model "${id}" is not one of: ${PROVIDERS.join(', ')}.`);
  }
}
