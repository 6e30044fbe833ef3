// `wrangler dev` without the DevTools inspector, through wrangler's own API (its command line has no
// switch for it): for the benchmarks, whose systems would otherwise all carry the dev server's
// inspector relay (bench/RESULTS.md, "How the floors are measured"). Started by dev-server.mjs with
// `inspector: false`; arguments: one JSON object { config, port, persistTo, vars }.
import { unstable_startWorker } from 'wrangler';

const { config, port, persistTo, vars } = JSON.parse(process.argv[2]);
const worker = await unstable_startWorker({
  ...(config ? { config } : {}),
  bindings: Object.fromEntries(Object.entries(vars).map(([name, value]) => [name, { type: 'plain_text', value }])),
  // As the command line builds it: Node's compatibility from the config's flags (both configs that
  // name one are dated after `nodejs_compat` came to mean its second version).
  build: { nodejsCompatMode: ({ compatibility_flags: flags = [] }) => (flags.includes('nodejs_compat') || flags.includes('nodejs_compat_v2') ? 'v2' : flags.includes('nodejs_als') ? 'als' : null) },
  dev: { remote: false, inspector: false, watch: false, server: { hostname: '127.0.0.1', port }, ...(persistTo ? { persist: persistTo } : {}) },
});
await worker.ready;
const stop = async () => {
  await worker.dispose();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
