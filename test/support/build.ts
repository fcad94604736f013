import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * CLI tests run the built program (bin/agent.js → dist/bundle), so build once before any test runs, as
 * `npm run build` does — unless the bundle is newer than every source file, as after `npm ci` (which
 * builds through `prepare`): the build is half a minute of a CI run. Type errors are left to `npm run
 * typecheck` (CI runs it first): tsc still emits then (exit 2), and the tests say what broke.
 */
export default function setup(): void {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  if (upToDate(root)) return;
  const tsc = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (tsc.status !== 0 && tsc.status !== 2) throw new Error(`the build failed (tsc exited ${tsc.status})`);
  const bundle = spawnSync(process.execPath, ['scripts/bundle.mjs'], { cwd: root, stdio: 'inherit' });
  if (bundle.status !== 0) throw new Error(`bundling failed (exit ${bundle.status})`);
}

/** Whether dist/bundle was written after every file the build reads last changed. */
function upToDate(root: string): boolean {
  let built: number;
  try {
    built = statSync(join(root, 'dist/bundle/hashes.json')).mtimeMs;
  } catch {
    return false;
  }
  const inputs = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];
  const newest = (path: string): number => {
    const stat = statSync(path);
    if (!stat.isDirectory()) return stat.mtimeMs;
    let latest = stat.mtimeMs;
    for (const name of readdirSync(path)) latest = Math.max(latest, newest(join(path, name)));
    return latest;
  };
  return [...inputs.map((f) => join(root, f)), join(root, 'src'), join(root, 'scripts')].every(
    (p) => newest(p) < built,
  );
}
