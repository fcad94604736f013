#!/usr/bin/env node
// The "before" for the start-up benchmarks: builds another revision of agent (main by default) into a
// temporary folder, so bench/startup.mjs and bench/first-request.mjs can time it in the same run,
// interleaved with this checkout's build.
// Usage: node bench/before.mjs [rev]   prints the folder; then node bench/startup.mjs --before <folder>
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** `--before <folder>` from the arguments: that folder's bin/agent.js, or undefined. */
export function beforeBin(argv = process.argv) {
  const i = argv.indexOf('--before');
  if (i < 0) return undefined;
  const bin = join(argv[i + 1] ?? '', 'bin', 'agent.js');
  if (!existsSync(bin)) throw new Error(`--before: no ${bin} (build one with node bench/before.mjs)`);
  return bin;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const rev = process.argv[2] ?? 'main';
  const dir = mkdtempSync(join(tmpdir(), 'agent-before-'));
  const run = (cmd, args, cwd = dir) =>
    execFileSync(cmd, args, { cwd, stdio: ['ignore', 'ignore', 'inherit'] });
  execFileSync('sh', ['-c', `git -C "${root}" archive "${rev}" | tar -x -C "${dir}"`], { stdio: 'inherit' });
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json']);
  run(process.execPath, ['scripts/bundle.mjs']);
  console.log(dir);
}
