import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canRunAsNobody, NOBODY, ROOT, runCli, startCli, tempDb } from '../support/cli.js';

// The bundled CLI compiles with V8's code cache kept per user (src/boot/code-cache.ts): what a user sees is
// the same output with or without it, a cache written by the first run and taken by the next, and no
// trouble when the cache is damaged, stale, unwritable or turned off.
const hashes: Record<string, string> = JSON.parse(
  readFileSync(join(ROOT, 'dist/bundle/hashes.json'), 'utf8'),
);
const perNode = `${process.version}-${process.arch}`;
const frontCache = `front.cjs.${hashes['front.cjs']}.v8`;
const tempDir = () => mkdtempSync(join(tmpdir(), 'agent-code-cache-'));

describe('the code cache', () => {
  it('is written by the first run and taken, unchanged, by the next', async () => {
    const cache = tempDir();
    const env = { AGENT_CODE_CACHE: cache };
    const first = await runCli(['--version'], { env });
    expect(first).toMatchObject({ code: 0, stderr: '' });
    const file = join(cache, perNode, frontCache);
    expect(existsSync(file)).toBe(true);
    const written = statSync(file).mtimeMs;

    const second = await runCli(['--version'], { env });
    expect(second).toMatchObject({ code: 0, stdout: first.stdout, stderr: '' });
    expect(statSync(file).mtimeMs).toBe(written);
  });

  it('lives in $XDG_CACHE_HOME/agent/code unless AGENT_CODE_CACHE says otherwise, and not at all when off', async () => {
    const xdg = tempDir();
    expect((await runCli(['--help'], { env: { XDG_CACHE_HOME: xdg } })).code).toBe(0);
    expect(readdirSync(join(xdg, 'agent', 'code', perNode))).toContain(frontCache);

    const off = tempDir();
    for (const setting of ['off', '0']) {
      const run = await runCli(['--help'], { env: { XDG_CACHE_HOME: off, AGENT_CODE_CACHE: setting } });
      expect(run).toMatchObject({ code: 0, stderr: '' });
    }
    expect(readdirSync(off)).toEqual([]);
  });

  it('a damaged cache file is refused by V8, the run is unaffected, and the file is written anew', async () => {
    const cache = tempDir();
    const env = { AGENT_CODE_CACHE: cache, AGENT_DB: tempDb() };
    const expected = await runCli(['cost', '--json'], {
      env: { AGENT_DB: tempDb(), AGENT_CODE_CACHE: 'off' },
    });
    mkdirSync(join(cache, perNode));
    const file = join(cache, perNode, frontCache);
    const garbage = Buffer.alloc(4096, 7);
    writeFileSync(file, garbage);
    const run = await runCli(['cost', '--json'], { env });
    expect(run).toMatchObject({ code: 0, stdout: expected.stdout, stderr: '' });
    expect(readFileSync(file).equals(garbage)).toBe(false);
  });

  it('a cache folder that cannot be written is no error', async () => {
    const file = join(tempDir(), 'a-file');
    writeFileSync(file, '');
    const run = await runCli(['--version'], { env: { AGENT_CODE_CACHE: join(file, 'below') } });
    expect(run).toMatchObject({ code: 0, stderr: '' });
  });

  it('is not used from a folder others can write to: a file planted there would run as code', async () => {
    const cache = tempDir();
    const dir = join(cache, perNode);
    mkdirSync(dir);
    chmodSync(dir, 0o777);
    const planted = join(dir, frontCache);
    writeFileSync(planted, 'planted');
    const run = await runCli(['--version'], { env: { AGENT_CODE_CACHE: cache } });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    // Neither read (it would have been refused and written anew) nor written to.
    expect(readFileSync(planted, 'utf8')).toBe('planted');
    expect(readdirSync(dir)).toEqual([frontCache]);
  });

  it.skipIf(!canRunAsNobody())(
    'is not made in a folder of another user, even one this user may write to',
    async () => {
      // As `sudo` keeping HOME would: the folder to be made would belong to the wrong user.
      const shared = tempDir();
      chmodSync(shared, 0o777);
      const run = await runCli(['--version'], {
        env: { AGENT_CODE_CACHE: join(shared, 'cache') },
        ...NOBODY,
      });
      expect(run).toMatchObject({ code: 0, stderr: '' });
      expect(readdirSync(shared)).toEqual([]);
    },
  );

  it("removes an older build's cache files and stale temporary files when it writes, and nothing else", async () => {
    const cache = tempDir();
    const dir = join(cache, perNode);
    mkdirSync(dir);
    for (const name of [
      'front.cjs.OLDHASH.v8',
      'chunk-GONE.cjs.abc.v8',
      'notes.txt',
      'old.v8.1.tmp',
      'new.v8.2.tmp',
    ])
      writeFileSync(join(dir, name), 'x');
    const longAgo = new Date(Date.now() - 3_600_000);
    utimesSync(join(dir, 'old.v8.1.tmp'), longAgo, longAgo);
    expect((await runCli(['--version'], { env: { AGENT_CODE_CACHE: cache } })).code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual([frontCache, 'new.v8.2.tmp', 'notes.txt']);
  });

  it('is written once the first model request has gone out, even if the process never exits normally', async () => {
    const cache = tempDir();
    let requested!: () => void;
    const request = new Promise<void>((resolve) => {
      requested = resolve;
    });
    // A model that never answers.
    const server = createServer((req) => {
      req.resume();
      requested();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const { child, done } = startCli(['chat', '--provider', 'openai', '-m', 'm'], {
      env: {
        OPENAI_BASE_URL: `${base}/v1`,
        OPENAI_API_KEY: 'k',
        AGENT_DB: tempDb(),
        AGENT_CODE_CACHE: cache,
      },
      input: 'Hello\n',
    });
    try {
      await request;
      const provider = `providers-openai-responses.cjs.${hashes['providers-openai-responses.cjs']}.v8`;
      const deadline = Date.now() + 5000;
      while (!existsSync(join(cache, perNode, provider)) && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(readdirSync(join(cache, perNode))).toContain(provider);
    } finally {
      child.kill('SIGKILL');
      await done;
      server.closeAllConnections();
      server.close();
    }
  });

  it("keeps the file's own line numbers in stack traces, with and without a cache", () => {
    const bundle = tempDir();
    const cache = tempDir();
    // As scripts/bundle.mjs writes a file: inside the CommonJS wrapper, which is its first line.
    const body = "'use strict';\n\nexports.fail = () => { throw new Error('here'); };";
    writeFileSync(
      join(bundle, 'm.cjs'),
      `(function (exports, require, module, __filename, __dirname) {\n${body}\n})`,
    );
    const script = `
      require(${JSON.stringify(join(ROOT, 'dist/bundle/boot.cjs'))})
        .installCodeCache(${JSON.stringify(bundle)}, ${JSON.stringify(cache)}, { 'm.cjs': 'h1' });
      try { require(${JSON.stringify(join(bundle, 'm.cjs'))}).fail(); }
      catch (e) { console.log(e.stack.split('\\n')[1]); }`;
    const runs = [1, 2].map(() => spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' }));
    for (const run of runs) {
      expect(run.stderr).toBe('');
      expect(run.stdout).toContain(`${join(bundle, 'm.cjs')}:4:30`);
    }
    expect(readdirSync(cache)).toEqual(['m.cjs.h1.v8']);
  });
});
