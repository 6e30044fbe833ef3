// `npm run check:upload`: the Worker as `wrangler deploy --dry-run` would upload it, held to its
// budget. Every new isolate parses the whole upload before its first request (bench/PROFILE.md,
// "Cold start: what a new isolate evaluates, and what it uploads"), so its size is a cost each
// deployment pays at every edge location; `npm run bench` reports it among issue 24's targets, and
// this check keeps a change from passing the budget unnoticed between two bench runs. A broken
// bundle or configuration fails here too, before anyone deploys. gzip at level 9, as the bench counts.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

/** The upload's budget, gzip (issue 24's target; `bench/run.mjs` reads it too). */
export const UPLOAD_BUDGET_KIB = 150;

/**
 * The Worker's code as `wrangler deploy --dry-run` writes it into `outdir` (with its source map), for
 * the checkout at `root` (`config`: another `wrangler.toml`, as the bench's systems have; `outfile`:
 * the upload's whole form written there too, in the same build): the code, its bytes, and gzip's at
 * level 9, as the upload is counted here and in `npm run bench`.
 */
export function dryRun({ root, outdir, config, outfile, wrangler = join(root, 'node_modules', '.bin', 'wrangler'), stderr = 'inherit' }) {
  const args = ['deploy', '--dry-run', ...(config ? ['--config', config] : []), '--outdir', outdir, ...(outfile ? ['--outfile', outfile] : [])];
  execFileSync(wrangler, args, { cwd: root, stdio: ['ignore', 'ignore', stderr] });
  const code = readFileSync(join(outdir, readdirSync(outdir).find((name) => name.endsWith('.js'))));
  return { code, bytes: code.length, gzipBytes: gzipSync(code, { level: 9 }).length };
}

/** This checkout's upload: its bytes, and gzip's. */
function uploadSize(root = resolve(import.meta.dirname, '..')) {
  const outdir = mkdtempSync(join(tmpdir(), 'check-upload-'));
  try {
    const { bytes, gzipBytes } = dryRun({ root, outdir });
    return { bytes, gzipBytes };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

// Run as a script (not imported, as `bench/run.mjs` imports the budget).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { bytes, gzipBytes } = uploadSize();
  const budget = UPLOAD_BUDGET_KIB * 1024;
  const size = `${(gzipBytes / 1024).toFixed(1)} KiB gzip (${gzipBytes.toLocaleString('en')} bytes; ${bytes.toLocaleString('en')} minified)`;
  if (gzipBytes > budget) {
    console.error(`check:upload: the Worker's upload is ${size}, ${(gzipBytes - budget).toLocaleString('en')} bytes over its ${UPLOAD_BUDGET_KIB} KiB budget. bench/PROFILE.md says what it holds and how it was kept small.`);
    process.exit(1);
  }
  console.log(`check:upload: ${size}, ${(budget - gzipBytes).toLocaleString('en')} bytes under the ${UPLOAD_BUDGET_KIB} KiB budget`);
}
