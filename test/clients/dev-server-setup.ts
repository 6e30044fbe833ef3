/**
 * The clients project's one Worker: `wrangler dev` on loopback, with AUTH_SECRET set so that the
 * published clients authenticate as they would against a deployment, and the stand-in upstream
 * (for a model slow enough to stop mid-answer). Its URL goes to the tests.
 */
import type { TestProject } from 'vitest/node';
import { startDevServer } from '../../scripts/dev-server.mjs';
import { startUpstream } from '../helpers/upstream-server';
import { SECRET } from '../helpers/tokens';

declare module 'vitest' {
  export interface ProvidedContext {
    workerUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const upstream = await startUpstream();
  const server = await startDevServer({
    vars: {
      AUTH_SECRET: SECRET,
      RATE_LIMIT_PER_MINUTE: '0',
      TITLES: 'off',
      OPENAI_BASE_URL: `${upstream.url}/v1`,
      OPENAI_API_KEY: 'test-key',
      MODELS: 'openai:script/slow',
    },
  });
  project.provide('workerUrl', server.base);
  return async () => {
    server.stop();
    await new Promise<void>((resolve) => {
      upstream.server.close(() => resolve());
      upstream.server.closeAllConnections();
    });
  };
}
