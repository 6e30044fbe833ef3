/** Types of `dev-server.mjs`, for the TypeScript tests that start the Worker under `wrangler dev`. */
export function startDevServer(options?: {
  config?: string;
  vars?: Record<string, string>;
  extraArgs?: string[];
  timeoutMs?: number;
}): Promise<{ base: string; port: number; group: number; log: () => string; stop: () => void }>;
