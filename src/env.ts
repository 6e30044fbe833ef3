/** The Worker's bindings, vars and secrets (CONTRACT section 2; README "Configuration"). */
import type { SessionObject } from './session/session-object';

export interface Env {
  SESSIONS: DurableObjectNamespace<SessionObject>;
  MODEL?: string;
  MODELS?: string;
  OPENAI_BASE_URL?: string;
  OPENAI_API_KEY?: string;
  SYSTEM_PROMPT?: string;
  MAX_ITERATIONS?: string;
  UPSTREAM_TIMEOUT_MS?: string;
  TOOL_TIMEOUT_MS?: string;
}
