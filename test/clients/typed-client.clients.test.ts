/**
 * The typed client as its own package: built with its own tsconfig into a folder of its own, loaded
 * from there, and used over HTTP against the Worker under `wrangler dev` with a token.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, inject, it } from 'vitest';
import type * as ClientModule from '../../client/src/index';
import { mint } from '../helpers/tokens';

it('builds, loads, and runs an exchange with a permission prompt over HTTP', async () => {
  mkdirSync(join('node_modules', '.cache'), { recursive: true });
  // Inside the project, where Node finds the package's dependency (eventsource-parser) as an install would.
  const outDir = mkdtempSync(join('node_modules', '.cache', 'client-build-'));
  execFileSync('npx', ['tsc', '-p', 'client/tsconfig.json', '--outDir', outDir], { stdio: 'pipe' });
  const { createClient } = (await import(pathToFileURL(resolve(outDir, 'index.js')).href)) as typeof ClientModule;

  const client = createClient({ baseUrl: inject('workerUrl'), token: () => mint({ sub: 'client-user' }) });
  const sessionId = `client-${Date.now()}`;
  const result = await client.run(sessionId, {
    messages: [{ role: 'user', content: 'remember the build works' }],
    onPermission: (call) => ({ granted: call.name === 'memory_save' }),
  });
  expect(result.turns.map((turn) => turn.stopReason)).toEqual(['tool_use', 'end_turn']);
  expect(result.text).toMatch(/Saved note/);
  expect((await client.sessions.get(sessionId)).messageCount).toBe(4);
}, 60_000);
