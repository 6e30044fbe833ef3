/**
 * Types of what `cloudflare:workers` gives the tests: this Worker's env (its bindings from
 * worker-configuration.d.ts, its vars from `WorkerVars`) and its exports (also generated there).
 */
import type { WorkerVars } from '../src/env';

declare global {
  namespace Cloudflare {
    interface Env extends WorkerVars {
      /** The test MCP server's own address (its log), in the MCP project only. */
      MCP_TEST_URL?: string;
    }
  }
}

export {};
