/** `npm run bench`: the benchmarks, in workerd with real Durable Object storage, not part of `npm test`. */
import { defineConfig } from 'vitest/config';
import { workersPool } from '../vitest.config.ts';

export default defineConfig({
  plugins: [workersPool()],
  test: {
    globalSetup: ['./test/global-setup.ts'],
    include: ['bench/**/*.bench.test.ts'],
    testTimeout: 300_000,
    fileParallelism: false,
  },
});
