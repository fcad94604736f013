import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * CLI tests run the built program (bin/agent.js → dist/bundle), so build once before any test runs, as
 * `npm run build` does. Type errors are left to `npm run typecheck` (CI runs it first): tsc still emits
 * then (exit 2), and the tests say what broke.
 */
export default function setup(): void {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const tsc = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (tsc.status !== 0 && tsc.status !== 2) throw new Error(`the build failed (tsc exited ${tsc.status})`);
  const bundle = spawnSync(process.execPath, ['scripts/bundle.mjs'], { cwd: root, stdio: 'inherit' });
  if (bundle.status !== 0) throw new Error(`bundling failed (exit ${bundle.status})`);
}
