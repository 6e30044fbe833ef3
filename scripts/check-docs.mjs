#!/usr/bin/env node
/**
 * Keeps the docs true as the code moves (run by `npm test`, and alone: `npm run check:docs`):
 * - every relative link in README.md and docs/ resolves to a file of the repository;
 * - every curl in them names a route of the OpenAPI document (`src/http/openapi.ts`, built here);
 * - no file of the repository cites a document it does not hold: every Markdown document a file
 *   names is one of the repository's, and no relative path leads out of it.
 * Prints every breach, exits 1 on any.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..');
const breaches = [];

const tracked = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n')
  .filter((file) => file && !file.startsWith('bench/systems/') && existsSync(join(ROOT, file)));
const docs = tracked.filter((file) => file === 'README.md' || (file.startsWith('docs/') && file.endsWith('.md')) || file === 'client/README.md');

// 1. Relative links.
for (const file of docs) {
  const text = readFileSync(join(ROOT, file), 'utf8');
  for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = match[1];
    if (/^(https?:|mailto:|#)/.test(target)) continue;
    const path = target.split('#')[0];
    if (!existsSync(resolve(ROOT, dirname(file), path))) breaches.push(`${file}: the link ${target} leads nowhere`);
  }
}

// 2. Curls against the OpenAPI document.
const out = join(mkdtempSync(join(tmpdir(), 'check-docs-')), 'openapi.mjs');
await build({ entryPoints: [join(ROOT, 'src/http/openapi.ts')], bundle: true, format: 'esm', platform: 'node', outfile: out, logLevel: 'error' });
const { openApiDocument } = await import(pathToFileURL(out).href);
const routes = Object.keys(openApiDocument().paths).map((path) => new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`));
for (const file of docs) {
  const text = readFileSync(join(ROOT, file), 'utf8');
  for (const line of text.split('\n')) {
    if (!/\bcurl\b/.test(line)) continue;
    for (const match of line.matchAll(/(?:https?:\/\/(?:127\.0\.0\.1|localhost)(?::\d+)?|\$BASE|\$B)(\/[^\s'"?#\\]*)/g)) {
      const path = match[1];
      if (!routes.some((route) => route.test(path))) breaches.push(`${file}: a curl names ${path}, which the OpenAPI document has no route for`);
    }
  }
}

// 3. Citations of documents the repository does not hold: every Markdown document a file names must
// be one of the repository's, and no relative path may lead out of it.
const held = new Set(tracked);
const holds = (reference, from) =>
  [resolve(ROOT, dirname(from), reference), resolve(ROOT, reference)].some((path) => held.has(relative(ROOT, path))) ||
  tracked.some((file) => file.endsWith(`/${reference.replace(/^(\.\.?\/)+/, '')}`));
for (const file of tracked) {
  if (!/\.(ts|mts|mjs|js|md|toml)$/.test(file)) continue;
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
  lines.forEach((line, index) => {
    for (const match of line.matchAll(/(?<![\w:/.-])((?:\.{1,2}\/)*[\w.-]+(?:\/[\w.-]+)*\.md)\b/g)) {
      if (!holds(match[1], file)) breaches.push(`${file}:${index + 1}: names ${match[1]}, which the repository does not hold`);
    }
    for (const match of line.matchAll(/(?<![\w.])((?:\.\.\/)+[\w.-]+)/g)) {
      if (!resolve(ROOT, dirname(file), match[1]).startsWith(`${ROOT}/`)) breaches.push(`${file}:${index + 1}: names ${match[1]}, outside the repository`);
    }
  });
}

if (breaches.length > 0) {
  console.error(`check:docs: ${breaches.length} breach${breaches.length === 1 ? '' : 'es'}`);
  for (const breach of breaches) console.error(`  ${breach}`);
  process.exit(1);
}
console.log(`check:docs: ${docs.length} pages; every link resolves, every curl names a route, nothing cites a document outside the repository`);
