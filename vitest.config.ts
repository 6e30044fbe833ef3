import { availableParallelism } from 'node:os';
import { cloudflareTest } from '@cloudflare/vitest-pool-workers';
import { defineConfig } from 'vitest/config';
import { MCP_TEST_TOKEN } from './test/helpers/mcp-fixtures.ts';
import { SECRET } from './test/helpers/tokens.ts';
import { WEBHOOK_TEST_SECRET } from './test/helpers/webhook-receiver.ts';
import { upstreamModels } from './test/helpers/upstream-server.ts';

/**
 * The Workers pool with the stand-in upstream: the same for the tests and the benchmarks. `mcp`: the
 * deployment names the test MCP server (three ways) in `MCP_SERVERS`, for the MCP tests; `bindings`
 * override the others.
 */
export const workersPool = ({ mcp = false, hooks = false, bindings = {} }: { mcp?: boolean; hooks?: boolean; bindings?: Record<string, string> } = {}) =>
  cloudflareTest(({ inject }) => ({
    main: './src/index.ts',
    wrangler: { configPath: './wrangler.toml' },
    miniflare: {
      // The Workers AI binding, stubbed at its own interface (`run`) by a worker of its own.
      serviceBindings: { AI: { name: 'ai-stub', entrypoint: 'AiStub' } },
      workers: [
        {
          name: 'ai-stub',
          modules: true,
          scriptPath: './test/helpers/ai-binding-stub.mjs',
          compatibilityDate: '2026-04-20',
        },
      ],
      bindings: {
        OPENAI_BASE_URL: `${inject('upstreamUrl')}/v1`,
        OPENAI_API_KEY: 'test-key',
        ANTHROPIC_BASE_URL: inject('upstreamUrl'),
        ANTHROPIC_API_KEY: 'test-anthropic-key',
        MODELS: upstreamModels().join(','),
        UPSTREAM_CONNECT_TIMEOUT_MS: '1500',
        UPSTREAM_FIRST_BYTE_TIMEOUT_MS: '1500',
        UPSTREAM_IDLE_TIMEOUT_MS: '1500',
        UPSTREAM_MAX_RETRIES: '1',
        MAX_ITERATIONS: '3',
        // The suites fire many requests as the one local user; the limit has tests of its own.
        RATE_LIMIT_PER_MINUTE: '0',
        // Small windows for the context tests; every other model keeps its own.
        MODEL_CONTEXT_TOKENS: 'openai:script/echo=3000,openai:script/overflow=3000,demo:small=2000',
        // A model whose turns stop once they have spent a few tokens, for the budget's tests.
        TURN_TOKEN_BUDGET: 'demo:budget=20',
        TOOL_RESULT_MAX_CHARS: '2000',
        // Small fan-out bounds, for their tests (hardening.test.ts).
        MAX_SUBAGENTS_PER_TURN: '3',
        TOOL_CONCURRENCY: '3',
        MAX_QUEUED_TURNS: '3',
        // The chat socket's visibility flags, for one tool.
        TOOL_VISIBILITY: JSON.stringify({ memory_list: { show_arguments: false, show_result: false } }),
        ...(mcp ? mcpBindings(inject('mcpUrl')) : {}),
        // Every turn's end to the stand-in receiver, with retries a test can wait for.
        ...(hooks ? { WEBHOOK_URL: `${inject('webhookUrl')}/hook`, WEBHOOK_SECRET: WEBHOOK_TEST_SECRET, WEBHOOK_RETRY_BASE_MS: '100' } : {}),
        ...bindings,
      },
    },
  }));

/**
 * `kit`: every tool trusted. `vault`: the same server, untrusted by default but `echo`. `gone`: a
 * server that is not there. The header's secret is named, and comes from a var of its own.
 */
function mcpBindings(url: string): Record<string, string> {
  const headers = { 'x-test-token': '${MCP_TEST_TOKEN}' };
  return {
    MCP_SERVERS: JSON.stringify([
      { name: 'kit', url: `${url}/mcp`, headers, trust: 'trusted' },
      { name: 'vault', url: `${url}/mcp`, headers, tools: { echo: 'trusted' } },
      { name: 'gone', url: 'http://127.0.0.1:9/mcp' },
    ]),
    MCP_TEST_TOKEN: MCP_TEST_TOKEN,
    MCP_TEST_URL: url,
    MCP_LIST_TTL_SECONDS: '3',
  };
}

/** The users project's deployment (test/users/): a secret, prices, and quotas each test's fresh user can reach. */
const usersBindings = {
  AUTH_SECRET: SECRET,
  PRICES: JSON.stringify({ 'openai:replay/openai/gpt-4o-text-usage': { input: 1000, output: 2000 } }),
  USER_DAILY_TOKENS: '2000',
  USER_DAILY_COST_USD: '0.5',
};

/**
 * What every project in workerd shares. The console is not intercepted there: vitest would send each
 * line over its channel as a call it awaits before the file may end, and a line logged in a Durable
 * Object's context (every turn's end) travels by a fetch that the object's eviction can drop. The
 * call then never returns and the whole run waits forever (reproduced: a test that logs from objects
 * as it evicts them). test/setup-workers.ts keeps the lines instead, and shows them for a failed test.
 */
const inWorkerd = {
  globalSetup: ['./test/global-setup.ts'],
  setupFiles: ['./test/setup-workers.ts'],
  testTimeout: 20_000,
  disableConsoleIntercept: true,
};

export default defineConfig({
  test: {
    // The Worker logs every request and turn as JSON; a passing test's lines would bury the report.
    // (In workerd the console is not vitest's: test/setup-workers.ts keeps the lines for a failure.)
    silent: 'passed-only',
    // Two files at a time even on two cores (vitest's default there is one): a file waits on the
    // runtime's commits, its timers and its sockets for much of its time, and its runtime starts
    // between files. On the 2-core CI machine, one at a time took 8.5 minutes, two 5.8.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      {
        plugins: [workersPool()],
        test: {
          name: 'workers',
          ...inWorkerd,
          include: ['test/**/*.test.ts'],
          exclude: ['test/browser/**', 'test/mcp/**', 'test/clients/**', 'test/users/**', 'test/background/**'],
        },
      },
      {
        // The same Worker, deployed with MCP servers.
        plugins: [workersPool({ mcp: true })],
        test: {
          name: 'workers-mcp',
          ...inWorkerd,
          include: ['test/mcp/**/*.test.ts'],
          // One file at a time: the MCP server's counts (lists, calls) must belong to one file.
          fileParallelism: false,
        },
      },
      {
        // The same Worker, deployed with tokens, prices and daily quotas: users' lists, usage and erasure.
        plugins: [workersPool({ bindings: usersBindings })],
        test: {
          name: 'workers-users',
          ...inWorkerd,
          include: ['test/users/**/*.test.ts'],
        },
      },
      {
        // The same Worker, deployed with a webhook: turns without a client, webhooks, schedules.
        plugins: [workersPool({ hooks: true })],
        test: {
          name: 'workers-hooks',
          ...inWorkerd,
          include: ['test/background/**/*.test.ts'],
        },
      },
      {
        // Node: the published pi and AG-UI clients against the Worker under `wrangler dev`.
        test: {
          name: 'clients',
          environment: 'node',
          globalSetup: ['./test/clients/dev-server-setup.ts'],
          include: ['test/clients/**/*.test.ts'],
          testTimeout: 30_000,
          hookTimeout: 120_000,
        },
      },
      {
        // Node: a real browser against the Worker under `wrangler dev`.
        test: {
          name: 'browser',
          environment: 'node',
          include: ['test/browser/**/*.test.ts'],
          // Each file starts its own `wrangler dev`: two starting at once can pick the same inspector port.
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
