// Starts `wrangler dev` on a free loopback port and waits until it answers: for the load run, the
// browser tests and anything else that needs the real Worker in workerd behind a real socket.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

/**
 * @param {{ config?: string, cwd?: string, vars?: Record<string, string>, extraArgs?: string[], inspector?: boolean, direct?: boolean, timeoutMs?: number }} [options]
 *   `config`: a wrangler config other than the project's own (the benchmarks' other systems);
 *   `cwd`: another checkout to serve (`npm run bench:compare`);
 *   `inspector: false`: without `wrangler dev`'s DevTools inspector (dev-worker.mjs), whose relay of
 *   each console line and each chunk of each subrequest's body costs the machine more CPU than a
 *   system itself (bench/PROFILE.md); `extraArgs` then only takes `--persist-to <dir>`.
 *   `direct` (with `inspector: false`): `base` is the runtime's own address, not that of wrangler's
 *   proxy worker in front of it, which relays each request and its answer, sends wrangler a request
 *   log line and, for each SSE answer, a note (bench/PROFILE.md, "The dev server's proxy").
 * @returns {Promise<{ base: string, port: number, group: number, log: () => string, stop: () => void }>}
 */
export async function startDevServer({ config, cwd, vars = {}, extraArgs = [], inspector = true, direct = false, timeoutMs = 60_000 } = {}) {
  const started = Date.now();
  const port = await new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
  const base = `http://127.0.0.1:${port}`;
  const varArgs = Object.entries(vars).flatMap(([name, value]) => ['--var', `${name}:${value}`]);
  const configArgs = config ? ['--config', config] : [];
  const persistAt = extraArgs.indexOf('--persist-to');
  if (!inspector && extraArgs.length !== (persistAt === -1 ? 0 : 2)) throw new Error(`startDevServer: without the inspector, only --persist-to is taken (${extraArgs.join(' ')})`);
  if (direct && inspector) throw new Error('startDevServer: `direct` needs `inspector: false` (dev-worker.mjs tells the runtime\'s address)');
  const command = inspector
    ? ['npx', ['wrangler', 'dev', ...configArgs, '--ip', '127.0.0.1', '--port', String(port), ...varArgs, ...extraArgs]]
    : [process.execPath, [join(import.meta.dirname, 'dev-worker.mjs'), JSON.stringify({ config, port, persistTo: persistAt === -1 ? undefined : extraArgs[persistAt + 1], vars })]];
  const dev = spawn(...command, {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
    // No ask for the `Request.cf` object, which nothing here reads (as `npm start`, scripts/start.mjs).
    env: { CLOUDFLARE_CF_FETCH_ENABLED: 'false', ...process.env },
    ...(cwd ? { cwd } : {}),
  });
  // wrangler's own output, kept for when something fails.
  let log = '';
  dev.stdout.on('data', (chunk) => (log += chunk));
  dev.stderr.on('data', (chunk) => (log += chunk));
  const stop = () => {
    try {
      process.kill(-dev.pid, 'SIGTERM');
    } catch {}
  };
  process.on('exit', stop);

  // wrangler dev may restart its runtime once just after it first answers (its custom build runs a
  // second time once its file watcher is ready): wait for its "Ready" line and a quiet moment.
  for (;;) {
    try {
      if (log.includes('Ready on') && (await fetch(`${base}/healthz`)).status < 500) break;
    } catch {}
    if (Date.now() - started > timeoutMs) {
      stop();
      throw new Error(`wrangler dev did not start in ${timeoutMs / 1000} s:\n${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await new Promise((resolve) => setTimeout(resolve, 3000));
  // `direct`: the last address the runtime told (a restart of the runtime moves it).
  const served = direct ? [...log.matchAll(/Runtime on (http:\/\/[\d.]+:\d+)/g)].at(-1)?.[1] : base;
  if (!served) {
    stop();
    throw new Error(`startDevServer: the runtime told no address to serve directly\n${log}`);
  }
  // `group`: the process group of wrangler and its workerd (the benchmarks read the runtime's CPU).
  return { base: served, port: Number(new URL(served).port), group: dev.pid, log: () => log, stop };
}
