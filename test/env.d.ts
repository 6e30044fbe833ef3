/** Types of what `cloudflare:workers` gives the tests: this Worker's env and its exports. */
import type { Env as WorkerEnv } from '../src/env';

declare global {
  namespace Cloudflare {
    interface Env extends WorkerEnv {
      /** The test MCP server's own address (its log), in the MCP project only. */
      MCP_TEST_URL?: string;
    }
    interface GlobalProps {
      mainModule: typeof import('../src/index');
      durableNamespaces: 'SessionObject';
    }
  }
}

export {};
