/**
 * Debian's Chromium (`apt-get install chromium`; `scripts/ensure-chromium.mjs` installs it where it is
 * missing), with the flags this machine's sandbox needs: no network beyond loopback, so nothing in
 * the background may try to reach Google's hosts.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
