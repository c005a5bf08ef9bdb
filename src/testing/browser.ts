// Headless Chromium for the browser tests (panel, status page), driven by playwright-core with the
// machine's own Debian chromium: nothing is ever downloaded. In CI (CI=true) a missing browser fails
// the run loudly; on a laptop without it those tests are skipped, and the suite says so.
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import { IN_CI } from './services.js';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const HAVE_BROWSER = existsSync(CHROMIUM_PATH);

if (!HAVE_BROWSER) {
  if (IN_CI) throw new Error(`CI=true but no browser at ${CHROMIUM_PATH}: the browser tests must run in CI`);
  console.warn(`\n[gengate tests] no browser at ${CHROMIUM_PATH}: SKIPPING the browser tests.\n`);
}

/** A fresh headless browser with the flags this machine's closed network needs. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}
