import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, cleanEnv, ROOT, tempDb } from '../support/cli.js';

// What a start loads of the bundle (scripts/bundle.mjs): `--version` and `--help` the front end alone, and
// a command that opens only the SQLite store one file more, each compiled with the code cache (named in
// hashes.json). A command that imports anything dynamically but the PostgreSQL store (an import() of
// sqlite-vec in the SQLite store did) silently falls back to a dozen shared chunks instead, one of them
// calling import() and so compiled without the cache (`agent cost` took 1.45 × `node -e 0`, not 1.3).
const hashes: Record<string, string> = JSON.parse(
  readFileSync(join(ROOT, 'dist/bundle/hashes.json'), 'utf8'),
);
const dir = mkdtempSync(join(tmpdir(), 'agent-startup-files-'));
const preload = join(dir, 'loaded.cjs');
writeFileSync(
  preload,
  `process.on('exit', () => require('fs').writeFileSync(process.env.LOADED_FILE, JSON.stringify(Object.keys(require.cache))));`,
);

/** The bundle's files that `agent <args>` loaded, by name. */
function loaded(args: string[]): string[] {
  const file = join(mkdtempSync(join(dir, 'run-')), 'loaded.json');
  const run = spawnSync(process.execPath, ['-r', preload, BIN, ...args], {
    env: cleanEnv({ AGENT_DB: tempDb(), LOADED_FILE: file }),
    encoding: 'utf8',
  });
  expect(run.stderr, args.join(' ')).toBe('');
  expect(run.status, args.join(' ')).toBe(0);
  const bundle = join(ROOT, 'dist', 'bundle');
  return (JSON.parse(readFileSync(file, 'utf8')) as string[])
    .filter((path) => path.startsWith(bundle))
    .map((path) => basename(path));
}

describe('a start of the bundled CLI', () => {
  it('loads only the front end for --version and --help', () => {
    expect(loaded(['--version'])).toEqual(['boot.cjs', 'front.cjs']);
    expect(loaded(['--help'])).toEqual(['boot.cjs', 'front.cjs']);
  });

  it('loads one file more for cost, notes, sessions and cache, each with the code cache', () => {
    for (const command of ['cost', 'notes', 'sessions', 'cache']) {
      const files = loaded([command]);
      expect(files, command).toEqual(['boot.cjs', 'front.cjs', `cli-commands-${command}.cjs`]);
      for (const name of files.slice(1)) expect(hashes[name], name).toBeTruthy();
    }
  });
});
