// `npm start`: `wrangler dev` on 127.0.0.1:8787 (the README's Quick start), with whatever follows
// `--` (`npm start -- --var MODEL:…`). It does not ask Cloudflare for the `Request.cf` object:
// nothing here reads it, and offline the ask printed a stack trace twice on every start.
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const wrangler = join(import.meta.dirname, '..', 'node_modules', 'wrangler', 'bin', 'wrangler.js');
const dev = spawn(process.execPath, [wrangler, 'dev', '--ip', '127.0.0.1', '--port', '8787', ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: { CLOUDFLARE_CF_FETCH_ENABLED: 'false', ...process.env },
});
// Ctrl-C reaches wrangler from the terminal itself; this process waits for it to stop, then goes.
process.on('SIGINT', () => {});
process.on('SIGTERM', () => dev.kill('SIGTERM'));
dev.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
