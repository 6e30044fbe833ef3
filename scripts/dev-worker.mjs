// `wrangler dev` without the DevTools inspector, through wrangler's own API (its command line has no
// switch for it): for the benchmarks, whose systems would otherwise all carry the dev server's
// inspector relay (bench/RESULTS.md, "How the floors are measured"). Started by dev-server.mjs with
// `inspector: false`; arguments: one JSON object { config, port, persistTo, vars }.
import { unstable_DevEnv } from 'wrangler';

const { config, port, persistTo, vars } = JSON.parse(process.argv[2]);
// The runtime's own address, behind wrangler's proxy worker: told on each reload, since a reload
// may move it. The proxy worker in front (live reload, the request log, a note to wrangler for each
// SSE answer) is no part of the platform.
const devEnv = new unstable_DevEnv();
const dispatch = devEnv.dispatch.bind(devEnv);
devEnv.dispatch = (event) => {
  if (event.type === 'reloadComplete') {
    const { protocol, hostname, port: runtimePort } = event.proxyData.userWorkerUrl;
    console.log(`Runtime on ${protocol}//${hostname}:${runtimePort}`);
  }
  dispatch(event);
};
const worker = await devEnv.startWorker({
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
