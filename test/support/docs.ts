import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './cli.js';

// The README and the pages it links, where a reader finds the commands to paste: tests that read the
// documentation read these (paths relative to the repository's root).

export const DOC_PAGES: string[] = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
  'bench/README.md',
];
