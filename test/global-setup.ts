/**
 * Starts the stand-ins of what lies outside the project for the whole run, the model servers and an
 * MCP server, and hands their URLs to the Worker.
 */
import type { TestProject } from 'vitest/node';
import { startMcpServer } from './helpers/mcp-server';
import { startUpstream } from './helpers/upstream-server';

declare module 'vitest' {
  export interface ProvidedContext {
    upstreamUrl: string;
    mcpUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const upstream = await startUpstream();
  const mcp = await startMcpServer();
  project.provide('upstreamUrl', upstream.url);
  project.provide('mcpUrl', mcp.url);
  return () =>
    Promise.all(
      [upstream.server, mcp.server].map(
        (server) =>
          new Promise<void>((resolve) => {
            server.close(() => resolve());
            server.closeAllConnections();
          }),
      ),
    ).then(() => undefined);
}
