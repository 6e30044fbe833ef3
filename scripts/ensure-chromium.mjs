#!/usr/bin/env node
// The browser tests need Debian's Chromium. Where it is missing and this is a Debian machine run as
// root (CI, a fresh container), install it with apt-get; elsewhere say how, and fail.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const path = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
if (existsSync(path)) process.exit(0);

const canInstall = process.getuid?.() === 0 && existsSync('/usr/bin/apt-get');
if (!canInstall) {
  console.error(`The browser tests need Chromium at ${path}. Install it (Debian: sudo apt-get install -y chromium), or set CHROMIUM_PATH.`);
  process.exit(1);
}
console.log(`Chromium is missing at ${path}: installing Debian's chromium package…`);
const apt = (...args) => execFileSync('apt-get', args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
try {
  apt('install', '-y', '--no-install-recommends', 'chromium');
} catch {
  apt('update');
  apt('install', '-y', '--no-install-recommends', 'chromium');
}
if (!existsSync(path)) {
  console.error(`apt-get ran, but there is still no Chromium at ${path}.`);
  process.exit(1);
}
