/**
 * Starts the stand-ins of what lies outside the project for the whole run, the model servers, an
 * MCP server and a webhook receiver, and hands their URLs to the Worker.
 */
import type { TestProject } from 'vitest/node';
import { startMcpServer } from './helpers/mcp-server';
import { startUpstream } from './helpers/upstream-server';
import { startWebhookReceiver } from './helpers/webhook-receiver';

declare module 'vitest' {
  export interface ProvidedContext {
    upstreamUrl: string;
    mcpUrl: string;
    webhookUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const upstream = await startUpstream();
  const mcp = await startMcpServer();
  const hooks = await startWebhookReceiver();
  project.provide('upstreamUrl', upstream.url);
  project.provide('mcpUrl', mcp.url);
  project.provide('webhookUrl', hooks.url);
  return () =>
    Promise.all(
      [upstream.server, mcp.server, hooks.server].map(
        (server) =>
          new Promise<void>((resolve) => {
            server.close(() => resolve());
            server.closeAllConnections();
          }),
      ),
    ).then(() => undefined);
}
