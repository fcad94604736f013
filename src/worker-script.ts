import { existsSync } from 'node:fs';

/**
 * A worker thread's compiled script, `file` of the modules in `folder` (e.g. 'research/documents'),
 * seen from the module `from` (its import.meta.url) as it runs: compiled beside it in dist/, from the
 * bundle (dist/bundle/), or from the sources (tests), once dist is built. Undefined when there is none:
 * the caller then does the work on its own thread.
 */
export function workerScript(from: string, folder: string, file: string): URL | undefined {
  return [`./${file}`, `../${folder}/${file}`, `../../../dist/${folder}/${file}`]
    .map((p) => new URL(p, from))
    .find((url) => existsSync(url));
}
