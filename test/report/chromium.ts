import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

// The system's Chromium for the browser tests: Debian's chromium-headless-shell (what .ci/run installs),
// else a full Chromium or Chrome on PATH. Undefined when there is none, and the browser tests are skipped.

const NAMES = ['chromium-headless-shell', 'chromium', 'chromium-browser', 'google-chrome'];
const PLACES = [
  '/usr/lib/chromium/headless_shell',
  '/usr/lib/chromium-headless-shell/chromium-headless-shell',
];

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function findChromium(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dirs = (env.PATH ?? '').split(delimiter).filter(Boolean);
  for (const name of NAMES) {
    for (const dir of dirs) if (executable(join(dir, name))) return join(dir, name);
  }
  return PLACES.find(executable);
}

/** Flags that let Chromium run as root in a container and keep it from calling home. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export const HOW_TO_INSTALL =
  'Browser tests skipped: no Chromium on PATH. Install one with `apt-get install chromium-headless-shell`.';
