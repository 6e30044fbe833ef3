// Bundles the typed client (client/src) for the playground page: public/playground/client.js, an
// ES module the page imports. Run by wrangler before `dev` and `deploy` ([build] in wrangler.toml);
// the output is build output, not committed.
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
