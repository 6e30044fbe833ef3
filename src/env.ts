/** The Worker's bindings, vars and secrets (CONTRACT section 2; README "Configuration"). */
import type { RateLimiterObject } from './limits/rate-limiter-object';
import type { AiBinding } from './providers/workers-ai/workers-ai-provider';
import type { SessionObject } from './session/session-object';

export interface Env {
  SESSIONS: DurableObjectNamespace<SessionObject>;
  RATE_LIMITER: DurableObjectNamespace<RateLimiterObject>;
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
}
