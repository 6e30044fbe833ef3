// The static assets the build makes (wrangler runs it before `dev` and `deploy`: [build] in
// wrangler.toml; `npm test` runs it too). Both are build output, never committed:
// - public/playground/client.js: the typed client (client/src) bundled for the playground page.
// - public/openapi.json: the OpenAPI document, written from the schemas the routes use
//   (src/http/openapi.ts), so that the Worker serves it from its assets and neither carries the
//   builder in its upload nor builds the document in an isolate (docs/decisions.md, 40).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

await build({
  entryPoints: ['client/src/index.ts'],
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  outfile: 'public/playground/client.js',
  logLevel: 'warning',
});

const scratch = mkdtempSync(join(tmpdir(), 'openapi-'));
try {
  const builder = join(scratch, 'openapi.mjs');
  await build({ entryPoints: ['src/http/openapi.ts'], bundle: true, format: 'esm', platform: 'neutral', mainFields: ['module', 'main'], outfile: builder, logLevel: 'warning' });
  const { openApiDocument } = await import(pathToFileURL(builder).href);
  writeFileSync('public/openapi.json', `${JSON.stringify(openApiDocument())}\n`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
