/** Starts the stand-in upstream model server for the whole run and hands its URL to the Worker. */
import type { TestProject } from 'vitest/node';
import { startUpstream } from './helpers/upstream-server';

declare module 'vitest' {
  export interface ProvidedContext {
    upstreamUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const { server, url } = await startUpstream();
  project.provide('upstreamUrl', url);
  return () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
}
