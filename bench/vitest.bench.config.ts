/** `npm run bench`: the benchmarks, in workerd with real Durable Object storage, not part of `npm test`. */
import { defineConfig } from 'vitest/config';
import { workersPool } from '../vitest.config.ts';

export default defineConfig({
  // A window every bench history fits in (nothing is compacted), and no title side calls.
  plugins: [workersPool({ bindings: { MODEL_CONTEXT_TOKENS: 'demo:demo=10000000', TITLES: 'off' } })],
  test: {
    globalSetup: ['./test/global-setup.ts'],
    include: ['bench/**/*.bench.test.ts'],
    testTimeout: 300_000,
    fileParallelism: false,
  },
});
