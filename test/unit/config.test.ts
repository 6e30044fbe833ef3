/**
 * The deployment's configuration (src/config.ts): each variable is checked by its own schema, made
 * only when the variable is set, and takes its documented value when unset. These hold the table to
 * what docs/configuration.md promises: every default, a bad value of every variable refused as a
 * configuration error that names it, an empty value read as unset, a TOML value of `[vars]` read as
 * its text, and each default written out as the variable's value read the same as leaving it unset
 * (so no default is one its check refuses).
 */
import { describe, expect, it } from 'vitest';
import { readConfig, type Config } from '../../src/config';
import type { Env } from '../../src/env';
import { ApiError } from '../../src/lib/errors';

const read = (vars: Record<string, unknown> = {}) => readConfig(vars as unknown as Env);
/** A configuration as data: its functions asked about one model and one tool. */
const asData = (config: Config) => ({ ...config, toolVisibility: config.toolVisibility('calculator'), turnTokenBudget: config.turnTokenBudget('openai:gpt-4o') });
const refusal = (vars: Record<string, unknown>) => {
  try {
    read(vars);
  } catch (error) {
    if (error instanceof ApiError) return { status: error.status, code: error.code, message: error.message };
    throw error;
  }
  throw new Error(`not refused: ${JSON.stringify(vars)}`);
};

describe('the configuration', () => {
  it('takes the documented values for every variable left unset', () => {
    expect(asData(read())).toEqual({
      defaultModel: 'demo:demo',
      allowedModels: ['demo:demo'],
      openai: { baseUrl: 'https://api.openai.com/v1' },
      anthropic: { baseUrl: 'https://api.anthropic.com', maxTokens: 8192, thinkingBudget: 0 },
      workersAi: { maxTokens: 2048 },
      systemPrompt: 'You are a helpful assistant. Use the tools you are given when they help, and answer concisely.',
      maxIterations: 10,
      upstream: { timeouts: { connectMs: 10_000, firstByteMs: 120_000, idleMs: 60_000 }, maxRetries: 2 },
      toolTimeoutMs: 30_000,
      toolConcurrency: 8,
      maxSubagentsPerTurn: 8,
      maxQueuedTurns: 8,
      rateLimitPerMinute: 120,
      turnTokenBudget: undefined,
      corsOrigins: [],
      titles: true,
      toolVisibility: { show_name: true, show_arguments: true, show_result: true },
      users: { prices: {}, dailyTokens: 0, dailyCostUsd: 0 },
      context: { windowOverride: { byModel: {} }, threshold: 0.8, toolResultMaxChars: 20_000 },
    });
  });

  it('reads an empty value as unset, and leaves alone what is no variable of its own (a binding)', () => {
    expect(asData(read({ MODEL: '', MAX_ITERATIONS: '', SESSIONS: { binding: true } }))).toEqual(asData(read()));
  });

  it('reads a TOML number, boolean, array or table of `[vars]` (a JSON value) as its text, and refuses one its check refuses', () => {
    const config = read({
      MAX_ITERATIONS: 20,
      COMPACTION_THRESHOLD: 0.5,
      MODELS: ['openai:gpt-4o', 'openai:gpt-4o-mini'],
      CORS_ORIGINS: ['https://a.example', 'https://b.example'],
      PRICES: { 'openai:gpt-4o': { input: 2.5, output: 10 } },
      TOOL_VISIBILITY: { calculator: { show_result: false } },
      MCP_SERVERS: [{ name: 'docs', url: 'https://docs.example/mcp' }],
    });
    expect(asData(config)).toMatchObject({
      allowedModels: ['demo:demo', 'openai:gpt-4o', 'openai:gpt-4o-mini'],
      corsOrigins: ['https://a.example', 'https://b.example'],
      mcp: { servers: [{ name: 'docs', url: 'https://docs.example/mcp' }] },
      maxIterations: 20,
      context: { threshold: 0.5 },
      users: { prices: { 'openai:gpt-4o': { input: 2.5, output: 10 } } },
      toolVisibility: { show_name: true, show_arguments: true, show_result: false },
    });
    expect(refusal({ TITLES: true }).message).toMatch(/^The deployment's TITLES is not valid: /);
    expect(refusal({ MODEL: { provider: 'openai' } }).message).toMatch(/^The deployment's MODEL is not valid: /);
    expect(refusal({ MAX_ITERATIONS: 0 }).message).toMatch(/^The deployment's MAX_ITERATIONS is not valid: /);
  });

  it.each([
    ['MODEL', 'demo:demo'],
    ['OPENAI_BASE_URL', 'https://api.openai.com/v1'],
    ['ANTHROPIC_BASE_URL', 'https://api.anthropic.com'],
    ['ANTHROPIC_MAX_TOKENS', '8192'],
    ['WORKERS_AI_MAX_TOKENS', '2048'],
    ['ANTHROPIC_THINKING_BUDGET', '0'],
    ['SYSTEM_PROMPT', 'You are a helpful assistant. Use the tools you are given when they help, and answer concisely.'],
    ['MAX_ITERATIONS', '10'],
    ['UPSTREAM_CONNECT_TIMEOUT_MS', '10000'],
    ['UPSTREAM_FIRST_BYTE_TIMEOUT_MS', '120000'],
    ['UPSTREAM_IDLE_TIMEOUT_MS', '60000'],
    ['UPSTREAM_MAX_RETRIES', '2'],
    ['TOOL_TIMEOUT_MS', '30000'],
    ['TOOL_CONCURRENCY', '8'],
    ['MAX_QUEUED_TURNS', '8'],
    ['MAX_SUBAGENTS_PER_TURN', '8'],
    ['COMPACTION_THRESHOLD', '0.8'],
    ['TOOL_RESULT_MAX_CHARS', '20000'],
    ['TITLES', 'on'],
    ['MCP_LIST_TTL_SECONDS', '300'],
    ['RATE_LIMIT_PER_MINUTE', '120'],
    ['USER_DAILY_TOKENS', '0'],
    ['USER_DAILY_COST_USD', '0'],
    ['WEBHOOK_RETRY_BASE_MS', '5000'],
  ])('reads %s written as its default (%s) as when it is unset', (name, value) => {
    expect(asData(read({ [name]: value }))).toEqual(asData(read()));
  });

  it('reads what a deployment sets', () => {
    const config = read({
      MODEL: ' openai:gpt-4o ',
      MODELS: 'openai:gpt-4o-mini, anthropic:claude',
      ANTHROPIC_MAX_TOKENS: '4096',
      ANTHROPIC_THINKING_BUDGET: '1024',
      COMPACTION_THRESHOLD: '0.5',
      OUTPUT_RESERVE_TOKENS: '2000',
      MODEL_CONTEXT_TOKENS: 'openai:gpt-4o=64000',
      TURN_TOKEN_BUDGET: '50000',
      TITLES: 'off',
      CORS_ORIGINS: 'https://a.example, http://localhost:5173',
      TOOL_VISIBILITY: '{"calculator": {"show_arguments": false}}',
      PRICES: '{"openai:gpt-4o": {"input": 2.5, "output": 10}}',
      USER_DAILY_COST_USD: '1.5',
      DATA_JURISDICTION: 'eu',
      WEBHOOK_URL: 'https://hooks.example/agent',
      WEBHOOK_SECRET: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    });
    expect(asData(config)).toMatchObject({
      defaultModel: 'openai:gpt-4o',
      allowedModels: ['openai:gpt-4o', 'openai:gpt-4o-mini', 'anthropic:claude'],
      anthropic: { maxTokens: 4096, thinkingBudget: 1024 },
      context: { windowOverride: { byModel: { 'openai:gpt-4o': 64000 } }, threshold: 0.5, outputReserve: 2000 },
      turnTokenBudget: 50000,
      titles: false,
      corsOrigins: ['https://a.example', 'http://localhost:5173'],
      toolVisibility: { show_name: true, show_arguments: false, show_result: true },
      users: { prices: { 'openai:gpt-4o': { input: 2.5, output: 10 } }, dailyCostUsd: 1.5, jurisdiction: 'eu' },
      webhook: { url: 'https://hooks.example/agent', secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', retryBaseMs: 5000 },
    });
  });

  it.each([
    ['MODEL', 'gpt-4o'],
    ['OPENAI_BASE_URL', 'not a url'],
    ['ANTHROPIC_BASE_URL', 'not a url'],
    ['ANTHROPIC_MAX_TOKENS', '0'],
    ['WORKERS_AI_MAX_TOKENS', 'many'],
    ['ANTHROPIC_THINKING_BUDGET', '-1'],
    ['MAX_ITERATIONS', '1.5'],
    ['UPSTREAM_CONNECT_TIMEOUT_MS', '600001'],
    ['UPSTREAM_FIRST_BYTE_TIMEOUT_MS', '0'],
    ['UPSTREAM_IDLE_TIMEOUT_MS', 'soon'],
    ['UPSTREAM_MAX_RETRIES', '11'],
    ['TOOL_TIMEOUT_MS', '0'],
    ['TOOL_CONCURRENCY', '257'],
    ['MAX_QUEUED_TURNS', '0'],
    ['MAX_SUBAGENTS_PER_TURN', '-1'],
    ['MODEL_CONTEXT_TOKENS', 'lots'],
    ['TURN_TOKEN_BUDGET', 'openai:gpt-4o=many'],
    ['OUTPUT_RESERVE_TOKENS', '0'],
    ['COMPACTION_THRESHOLD', '0.99'],
    ['TOOL_RESULT_MAX_CHARS', '0'],
    ['TITLES', 'yes'],
    ['MCP_SERVERS', '{oops'],
    ['MCP_LIST_TTL_SECONDS', '86401'],
    ['TOOL_VISIBILITY', '{"calculator": {"show": false}}'],
    ['CORS_ORIGINS', 'a.example'],
    ['RATE_LIMIT_PER_MINUTE', '-5'],
    ['PRICES', '{"gpt-4o": {"input": 1, "output": 2}}'],
    ['USER_DAILY_TOKENS', '-1'],
    ['USER_DAILY_COST_USD', 'free'],
    ['DATA_JURISDICTION', 'mars'],
    ['WEBHOOK_URL', 'ftp://hooks.example'],
    ['WEBHOOK_SECRET', 'secret'],
    ['WEBHOOK_RETRY_BASE_MS', '0'],
  ])('refuses a bad %s (%s) as a configuration error that names it', (name, value) => {
    const refused = refusal({ [name]: value });
    expect(refused).toMatchObject({ status: 500, code: 'configuration_error' });
    expect(refused.message).toMatch(new RegExp(`^The deployment's ${name}(\\.[^ ]+)? is not valid: `));
  });

  it('names the first bad variable in the table’s order, and where inside a JSON one it is', () => {
    expect(refusal({ TITLES: 'yes', MODEL: 'gpt' }).message).toMatch(/^The deployment's MODEL is not valid/);
    expect(refusal({ PRICES: '{"openai:gpt-4o": {"input": -1, "output": 2}}' }).message).toMatch(/^The deployment's PRICES\.openai:gpt-4o\.input is not valid/);
  });
});
