/**
 * The deployment's variables (vars and secrets), each with its reading (`config-readings.ts`), and the
 * configuration made of them. `config.ts` makes each reading's zod check, which stays the definition;
 * this module imports no zod, and reads the common texts of the plain readings by hand. So a Worker
 * isolate whose deployment sets only such variables reads its configuration without loading zod
 * (`loadConfig`, bench/PROFILE.md, "A Worker's turn without zod").
 */
import type { Env } from './env';
import type { CorsOrigins } from './http/cors';
import { ApiError } from './lib/errors';
import { quoted } from './lib/quoted';
import { DEMO_MODEL_ID } from './providers/demo/demo-id';
import type { UpstreamTimeouts } from './providers/upstream-timer';
import type { ContextSettings } from './agent/context/context-window';
import { ALL_VISIBLE, type ToolVisibility } from './protocol/socket-frames';
import { resolveMcpServers } from './tools/mcp/mcp-config';
import type { McpSettings } from './tools/mcp/mcp-toolbox';
import { JURISDICTIONS, type UserSettings } from './users/prices';
import { plainValue, type Reading, type ValueOf } from './config-readings';

export const DEFAULT_SYSTEM_PROMPT =
  'You are a helpful assistant. Use the tools you are given when they help, and answer concisely.';

/** A variable's reading, and its value when the deployment leaves it unset (or empty). */
const orDefault = <R extends Reading>(reading: R, unset: ValueOf<R>) => ({ reading, unset });
const optional = <R extends Reading>(reading: R) => ({ reading, unset: undefined });

const MODEL_ID = { kind: 'pattern', pattern: /^[a-z0-9-]+:.+$/, trim: true } as const;
const text = { kind: 'text' } as const;
const url = { kind: 'url' } as const;
const count = (min: number, max: number) => ({ kind: 'count', min, max }) as const;
/** A number of tokens for every model, or `provider:model=tokens` pairs. */
const tokensByModel = {
  kind: 'pattern',
  pattern: /^(\d+|[a-z0-9-]+:[^=,]+=\d+(,[a-z0-9-]+:[^=,]+=\d+)*)$/,
  message: 'write a number of tokens, or provider:model=tokens pairs separated by commas',
} as const;

/**
 * The variables. A variable the deployment leaves unset is read as its default, with no check at all
 * (bench/PROFILE.md, "The configuration's checks made for what is set").
 */
export const VARS = {
  MODEL: orDefault(MODEL_ID, DEMO_MODEL_ID),
  MODELS: optional(text),
  OPENAI_BASE_URL: orDefault(url, 'https://api.openai.com/v1'),
  OPENAI_API_KEY: optional(text),
  ANTHROPIC_BASE_URL: orDefault(url, 'https://api.anthropic.com'),
  ANTHROPIC_API_KEY: optional(text),
  ANTHROPIC_MAX_TOKENS: orDefault(count(1, 1_000_000), 8192),
  WORKERS_AI_MAX_TOKENS: orDefault(count(1, 1_000_000), 2048),
  ANTHROPIC_THINKING_BUDGET: orDefault(count(0, 1_000_000), 0),
  SYSTEM_PROMPT: orDefault({ kind: 'text', nonEmpty: true }, DEFAULT_SYSTEM_PROMPT),
  MAX_ITERATIONS: orDefault(count(1, 1000), 10),
  UPSTREAM_CONNECT_TIMEOUT_MS: orDefault(count(1, 600_000), 10_000),
  UPSTREAM_FIRST_BYTE_TIMEOUT_MS: orDefault(count(1, 3_600_000), 120_000),
  UPSTREAM_IDLE_TIMEOUT_MS: orDefault(count(1, 3_600_000), 60_000),
  UPSTREAM_MAX_RETRIES: orDefault(count(0, 10), 2),
  TOOL_TIMEOUT_MS: orDefault(count(1, 3_600_000), 30_000),
  TOOL_CONCURRENCY: orDefault(count(1, 256), 8),
  MAX_QUEUED_TURNS: orDefault(count(1, 1000), 8),
  MAX_SUBAGENTS_PER_TURN: orDefault(count(0, 256), 8),
  MODEL_CONTEXT_TOKENS: optional(tokensByModel),
  TURN_TOKEN_BUDGET: optional(tokensByModel),
  OUTPUT_RESERVE_TOKENS: optional(count(1, Number.MAX_SAFE_INTEGER)),
  COMPACTION_THRESHOLD: orDefault({ kind: 'number', min: 0.1, max: 0.95 }, 0.8),
  TOOL_RESULT_MAX_CHARS: orDefault(count(1, 10_000_000), 20_000),
  TITLES: orDefault({ kind: 'choice', options: ['on', 'off'] } as const, 'on'),
  MCP_SERVERS: optional({ kind: 'json', of: 'mcpServers' } as const),
  MCP_LIST_TTL_SECONDS: orDefault(count(0, 86_400), 300),
  TOOL_VISIBILITY: optional({ kind: 'json', of: 'toolVisibility' } as const),
  CORS_ORIGINS: optional({
    kind: 'pattern',
    pattern: /^(\*|https?:\/\/[^\s,/]+(\s*,\s*https?:\/\/[^\s,/]+)*)$/,
    message: 'write "*" or origins separated by commas, e.g. "https://app.example.com,http://localhost:5173"',
    trim: true,
  } as const),
  RATE_LIMIT_PER_MINUTE: orDefault(count(0, 1_000_000), 120),
  PRICES: optional({ kind: 'json', of: 'prices' } as const),
  USER_DAILY_TOKENS: orDefault(count(0, 1e12), 0),
  USER_DAILY_COST_USD: orDefault({ kind: 'number', min: 0, max: 1e9 }, 0),
  DATA_JURISDICTION: optional({ kind: 'choice', options: JURISDICTIONS } as const),
  WEBHOOK_URL: optional({ kind: 'url', web: 'write an http(s) URL' } as const),
  WEBHOOK_SECRET: optional({ kind: 'pattern', pattern: /^whsec_[A-Za-z0-9+/]{16,}={0,2}$/, message: 'write a Standard Webhooks secret: whsec_ and base64' } as const),
  WEBHOOK_RETRY_BASE_MS: orDefault(count(1, 3_600_000), 5000),
} satisfies Record<string, { reading: Reading; unset: unknown }>;

type Vars = { [Name in keyof typeof VARS]: ValueOf<(typeof VARS)[Name]['reading']> | (typeof VARS)[Name]['unset'] };

/** A variable's check (`config.ts`): its value, or `500 configuration_error` thrown with the variable named. */
export type Check = (name: string, reading: Reading, text: string) => unknown;

/**
 * A variable as text. `[vars]` in `wrangler.toml` may give a TOML number, boolean, array or table
 * (`MAX_ITERATIONS = 20`, `MODELS = ["openai:gpt-4o", ...]`, `PRICES = { ... }`), which reach the
 * Worker as JSON values: read as their text, a list of texts as the comma-separated list the list
 * variables take and anything else as its JSON, never left for the default without a word.
 */
function asText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object') return String(value);
  return Array.isArray(value) && value.every((item) => typeof item === 'string') ? value.join(',') : JSON.stringify(value);
}

/** Each variable as read, or as it is when unset; undefined where a variable needs its check and none was given. */
function readVars(env: Env, check: Check | undefined): Vars | undefined {
  const vars: Record<string, unknown> = {};
  for (const [name, { reading, unset }] of Object.entries(VARS) as [string, { reading: Reading; unset: unknown }][]) {
    const value = asText((env as unknown as Record<string, unknown>)[name]);
    if (value === undefined || value === '') {
      vars[name] = unset;
      continue;
    }
    const plain = plainValue(reading, value);
    if (plain !== undefined) vars[name] = plain;
    else if (check) vars[name] = check(name, reading, value);
    else return undefined;
  }
  return vars as Vars;
}

export type Config = {
  defaultModel: string;
  allowedModels: string[];
  openai: { baseUrl: string; apiKey?: string };
  anthropic: { baseUrl: string; apiKey?: string; maxTokens: number; thinkingBudget: number };
  workersAi: { maxTokens: number };
  systemPrompt: string;
  maxIterations: number;
  upstream: { timeouts: UpstreamTimeouts; maxRetries: number };
  toolTimeoutMs: number;
  /** Server tool calls of one batch that run at once; the others wait for a free slot. */
  toolConcurrency: number;
  /** Sub-agents (`agent_spawn`) one turn may start; calls past it get an error result. */
  maxSubagentsPerTurn: number;
  /** Turns that may wait in a session's queue (ifBusy "enqueue"). */
  maxQueuedTurns: number;
  rateLimitPerMinute: number;
  /** The origins whose pages may call the API (CORS): `*`, a list, or none (same origin only). */
  corsOrigins: CorsOrigins;
  context: ContextSettings;
  /** Whether a session gets a title from the model after its first exchange. */
  titles: boolean;
  /** What the chat socket shows of each tool (the chat protocol's visibility flags), all by default. */
  toolVisibility: (toolName: string) => ToolVisibility;
  /**
   * The tokens (input and output, summed over its model calls) a turn may spend before it stops to
   * ask for the go-ahead (the Harness protocol's REQUEST_STOP), for a model; undefined: no budget.
   */
  turnTokenBudget: (modelId: string) => number | undefined;
  /** The MCP servers whose tools are offered, if any. */
  mcp?: McpSettings;
  /** Prices, each user's daily limits, and the jurisdiction users' objects live in (docs/users.md). */
  users: UserSettings;
  /** Where every turn's end is sent, signed (docs/background.md); none without `WEBHOOK_URL`. */
  webhook?: { url: string; secret: string; retryBaseMs: number };
};

/** The parsed configuration of each `env` object: the Worker's lives as long as its isolate. */
const parsedConfigs = new WeakMap<Env, Config>();

/**
 * The configuration of `env`, read once and kept. Without `check` (a Worker, `loadConfig`), undefined
 * when a variable the deployment sets needs its check: the caller loads the checks and asks again.
 */
export function configOf(env: Env, check?: Check): Config | undefined {
  let config = parsedConfigs.get(env);
  if (!config) {
    const vars = readVars(env, check);
    if (!vars) return undefined;
    config = parseConfig(env, vars);
    parsedConfigs.set(env, config);
  }
  return config;
}

function parseConfig(env: Env, vars: Vars): Config {
  const listed = (vars.MODELS ?? '').split(',').map((model) => model.trim()).filter(Boolean);
  for (const model of listed) {
    if (plainValue(MODEL_ID, model) === undefined) {
      throw new ApiError(500, 'configuration_error', `The deployment's MODELS entry "${model}" is not "provider:model".`);
    }
  }
  const config: Config = {
    defaultModel: vars.MODEL,
    allowedModels: listed.length > 0 ? [...new Set([vars.MODEL, ...listed])] : [vars.MODEL],
    openai: { baseUrl: vars.OPENAI_BASE_URL },
    workersAi: { maxTokens: vars.WORKERS_AI_MAX_TOKENS },
    anthropic: { baseUrl: vars.ANTHROPIC_BASE_URL, maxTokens: vars.ANTHROPIC_MAX_TOKENS, thinkingBudget: vars.ANTHROPIC_THINKING_BUDGET },
    systemPrompt: vars.SYSTEM_PROMPT,
    maxIterations: vars.MAX_ITERATIONS,
    upstream: {
      timeouts: { connectMs: vars.UPSTREAM_CONNECT_TIMEOUT_MS, firstByteMs: vars.UPSTREAM_FIRST_BYTE_TIMEOUT_MS, idleMs: vars.UPSTREAM_IDLE_TIMEOUT_MS },
      maxRetries: vars.UPSTREAM_MAX_RETRIES,
    },
    toolTimeoutMs: vars.TOOL_TIMEOUT_MS,
    toolConcurrency: vars.TOOL_CONCURRENCY,
    maxSubagentsPerTurn: vars.MAX_SUBAGENTS_PER_TURN,
    maxQueuedTurns: vars.MAX_QUEUED_TURNS,
    rateLimitPerMinute: vars.RATE_LIMIT_PER_MINUTE,
    turnTokenBudget: budgetFor(parseTokensByModel(vars.TURN_TOKEN_BUDGET)),
    corsOrigins: vars.CORS_ORIGINS === '*' ? '*' : (vars.CORS_ORIGINS ?? '').split(',').map((origin) => origin.trim()).filter(Boolean),
    titles: vars.TITLES === 'on',
    toolVisibility: (name) => ({ ...ALL_VISIBLE, ...vars.TOOL_VISIBILITY?.[name] }),
    users: {
      prices: vars.PRICES ?? {},
      dailyTokens: vars.USER_DAILY_TOKENS,
      dailyCostUsd: vars.USER_DAILY_COST_USD,
      ...(vars.DATA_JURISDICTION ? { jurisdiction: vars.DATA_JURISDICTION } : {}),
    },
    context: {
      windowOverride: parseTokensByModel(vars.MODEL_CONTEXT_TOKENS),
      threshold: vars.COMPACTION_THRESHOLD,
      toolResultMaxChars: vars.TOOL_RESULT_MAX_CHARS,
      ...(vars.OUTPUT_RESERVE_TOKENS ? { outputReserve: vars.OUTPUT_RESERVE_TOKENS } : {}),
    },
  };
  if (vars.MCP_SERVERS && vars.MCP_SERVERS.length > 0) {
    const servers = resolveMcpServers(vars.MCP_SERVERS, env as unknown as Record<string, unknown>);
    if ('missing' in servers) throw new ApiError(500, 'configuration_error', `The deployment has no secret ${servers.missing}.`);
    config.mcp = {
      servers,
      listTtlMs: vars.MCP_LIST_TTL_SECONDS * 1000,
      listTimeoutMs: Math.min(vars.UPSTREAM_CONNECT_TIMEOUT_MS, 10_000),
      callTimeoutMs: vars.TOOL_TIMEOUT_MS,
    };
  }
  if (vars.OPENAI_API_KEY) config.openai.apiKey = vars.OPENAI_API_KEY;
  if (vars.ANTHROPIC_API_KEY) config.anthropic.apiKey = vars.ANTHROPIC_API_KEY;
  if (vars.WEBHOOK_URL) {
    if (!vars.WEBHOOK_SECRET) throw new ApiError(500, 'configuration_error', "The deployment's WEBHOOK_URL needs WEBHOOK_SECRET: every webhook is signed.");
    config.webhook = { url: vars.WEBHOOK_URL, secret: vars.WEBHOOK_SECRET, retryBaseMs: vars.WEBHOOK_RETRY_BASE_MS };
  }
  if (vars.USER_DAILY_COST_USD > 0 && !vars.PRICES) {
    throw new ApiError(500, 'configuration_error', "The deployment's USER_DAILY_COST_USD needs PRICES: without prices no call has a cost.");
  }
  if (config.anthropic.thinkingBudget > 0 && config.anthropic.thinkingBudget >= config.anthropic.maxTokens) {
    throw new ApiError(500, 'configuration_error', "The deployment's ANTHROPIC_THINKING_BUDGET must be below ANTHROPIC_MAX_TOKENS.");
  }
  return config;
}

/** A budget per model from the same `number | provider:model=tokens` form; 0 is no budget. */
function budgetFor(budgets: ContextSettings['windowOverride']): (modelId: string) => number | undefined {
  return (modelId) => {
    const budget = budgets.byModel[modelId] ?? budgets.all;
    return budget ? budget : undefined;
  };
}

/** `MODEL_CONTEXT_TOKENS` (and `TURN_TOKEN_BUDGET`): one number for every model, or `provider:model=tokens` pairs. */
function parseTokensByModel(value: string | undefined): ContextSettings['windowOverride'] {
  if (!value) return { byModel: {} };
  if (/^\d+$/.test(value)) return { all: Number(value), byModel: {} };
  const byModel: Record<string, number> = {};
  for (const pair of value.split(',')) {
    const at = pair.lastIndexOf('=');
    byModel[pair.slice(0, at).trim()] = Number(pair.slice(at + 1));
  }
  return { byModel };
}

/** The model a request asks for, checked against the deployment's allow-list. */
export function pickModel(config: Config, requested: string | undefined): string {
  if (requested === undefined) return config.defaultModel;
  if (config.allowedModels.includes(requested)) return requested;
  // A name without its provider is the usual slip: the answer shows how the allowed ones are written.
  const form = plainValue(MODEL_ID, requested) !== undefined ? '' : ' Models are written "provider:model".';
  throw new ApiError(400, 'model_not_allowed', `The model ${quoted(requested, 256)} is not offered here.${form} Allowed: ${config.allowedModels.join(', ')}.`, {
    details: { allowedModels: config.allowedModels },
  });
}
