/**
 * How many tokens a model's prompt may hold: its context window (a built-in table of known models,
 * `MODEL_CONTEXT_TOKENS` to set or override it, a smaller one a server named in an overflow), less a
 * reserve kept for the answer, times the share at which the history is compacted.
 */
import { BoundedMap } from '../../lib/bounded-map';

const KNOWN_WINDOWS: [RegExp, number][] = [
  [/^anthropic:claude-(sonnet-4|opus-4|haiku-4|3-7|3-5)/, 200_000],
  [/^anthropic:/, 200_000],
  [/^openai:gpt-4\.1/, 1_047_576],
  [/^openai:gpt-5/, 400_000],
  [/^openai:(gpt-4o|chatgpt-4o)/, 128_000],
  [/^openai:o[134]/, 200_000],
  [/^openai:(deepseek-chat|deepseek-reasoner)/, 128_000],
  [/^openai:grok-3/, 131_072],
  [/^openai:grok/, 256_000],
  [/^workers-ai:@cf\/meta\/llama-3\.3-70b-instruct-fp8-fast/, 24_000],
  [/^workers-ai:@cf\/meta\/llama-4-scout/, 131_000],
  [/^demo:/, 32_000],
];

/** Unknown models (a local server, say) get a cautious window: set MODEL_CONTEXT_TOKENS for yours. */
export const DEFAULT_WINDOW = 32_000;

export type ContextSettings = {
  /** One window for every model, or per model (`provider:model=tokens`). */
  windowOverride: { all?: number; byModel: Record<string, number> };
  outputReserve?: number;
  threshold: number;
  toolResultMaxChars: number;
};

export type ContextBudget = { window: number; reserve: number; limit: number };

/**
 * The windows servers named in their overflows, smaller than the one configured or known (a local
 * server started with a small context, a model the table has wrong): they rule, for the isolate's
 * life. A window learnt per model, the oldest forgotten past a bound no deployment reaches.
 */
const learntWindows = new BoundedMap<string, number>(256);

/** A server said the model's window is `window`: it rules where it is smaller than the one assumed. */
export function learnWindow(modelId: string, window: number): void {
  if (window < (learntWindows.get(modelId) ?? Infinity)) learntWindows.set(modelId, window);
}

export function contextBudget(modelId: string, settings: ContextSettings): ContextBudget {
  const assumed =
    settings.windowOverride.byModel[modelId] ??
    settings.windowOverride.all ??
    KNOWN_WINDOWS.find(([pattern]) => pattern.test(modelId))?.[1] ??
    DEFAULT_WINDOW;
  const window = Math.min(assumed, learntWindows.get(modelId) ?? Infinity);
  const reserve = Math.min(settings.outputReserve ?? Math.min(4096, Math.floor(window / 4)), Math.floor(window / 2));
  return { window, reserve, limit: Math.floor((window - reserve) * settings.threshold) };
}
