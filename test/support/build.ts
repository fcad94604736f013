import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * CLI tests run the built program, so build once before any test runs. Type errors are left to
 * `npm run typecheck` (CI runs it first): tsc still emits then (exit 2), and the tests say what broke.
 */
export default function setup(): void {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const r = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (r.status !== 0 && r.status !== 2) throw new Error(`the build failed (tsc exited ${r.status})`);
}
