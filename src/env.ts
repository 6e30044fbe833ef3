/**
 * The Worker's bindings, vars and secrets (docs/configuration.md). The Durable Object bindings come
 * from wrangler.toml, typed by `npm run types` (`wrangler types`, into worker-configuration.d.ts), so
 * that nothing here imports the objects' classes; what wrangler.toml does not name (optional vars,
 * secrets, the AI binding) is `WorkerVars`.
 */
import type { AiBinding } from './providers/workers-ai/workers-ai-provider';

export type Env = WranglerBindings & WorkerVars;

export interface WorkerVars {
  /** Workers AI (`[ai] binding = "AI"`), for the `workers-ai` provider. */
  AI?: AiBinding;
  WORKERS_AI_MAX_TOKENS?: string;
  AUTH_SECRET?: string;
  RATE_LIMIT_PER_MINUTE?: string;
  MODEL?: string;
  MODELS?: string;
  OPENAI_BASE_URL?: string;
  OPENAI_API_KEY?: string;
  ANTHROPIC_BASE_URL?: string;
  ANTHROPIC_API_KEY?: string;
  ANTHROPIC_MAX_TOKENS?: string;
  ANTHROPIC_THINKING_BUDGET?: string;
  SYSTEM_PROMPT?: string;
  MAX_ITERATIONS?: string;
  UPSTREAM_CONNECT_TIMEOUT_MS?: string;
  UPSTREAM_FIRST_BYTE_TIMEOUT_MS?: string;
  UPSTREAM_IDLE_TIMEOUT_MS?: string;
  UPSTREAM_MAX_RETRIES?: string;
  TOOL_TIMEOUT_MS?: string;
  MODEL_CONTEXT_TOKENS?: string;
  OUTPUT_RESERVE_TOKENS?: string;
  COMPACTION_THRESHOLD?: string;
  TOOL_RESULT_MAX_CHARS?: string;
  TOOL_CONCURRENCY?: string;
  MAX_SUBAGENTS_PER_TURN?: string;
  MAX_QUEUED_TURNS?: string;
  CORS_ORIGINS?: string;
  MCP_SERVERS?: string;
  MCP_LIST_TTL_SECONDS?: string;
  TITLES?: string;
  TOOL_VISIBILITY?: string;
  TURN_TOKEN_BUDGET?: string;
  PRICES?: string;
  USER_DAILY_TOKENS?: string;
  USER_DAILY_COST_USD?: string;
  DATA_JURISDICTION?: string;
  WEBHOOK_URL?: string;
  WEBHOOK_SECRET?: string;
  WEBHOOK_RETRY_BASE_MS?: string;
}
