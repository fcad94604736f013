import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  createReadStream,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDb } from '../support/cli.js';
import { sse, startFakeServer } from '../support/fake-server.js';
import { chatSse } from '../support/sse-builders.js';

// `--out` as a user meets it: what the path names is what gets written, and what cannot be written is
// refused before the run. Extractive runs (no key) keep these fast; one run has a model, to show that
// a refused path costs no model call.

const QUESTION = 'How much can a support agent refund without approval?';
const isRoot = process.getuid?.() === 0;
const folder = () => mkdtempSync(join(tmpdir(), 'agent-out-file-'));

const research = (out: string, extra: string[] = []) =>
  runCli(['research', QUESTION, '--out', out, ...extra], { env: { AGENT_DB: tempDb() } });

/** The Markdown an extractive answer to QUESTION is written as. */
const MARKDOWN = /^# How much can a support agent refund without approval\?\n\n_No model was used/;

describe('research --out', () => {
  it('replaces a regular file atomically, keeping its mode and (as root) its owner', async () => {
    const dir = folder();
    const out = join(dir, 'private.md');
    writeFileSync(out, 'old text');
    chmodSync(out, 0o600);
    if (isRoot) chownSync(out, 65534, 65534);
    const r = await research(out);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`Written to ${out}`);
    expect(readFileSync(out, 'utf8')).toMatch(MARKDOWN);
    const st = statSync(out);
    expect(st.mode & 0o777).toBe(0o600);
    if (isRoot) expect([st.uid, st.gid]).toEqual([65534, 65534]);
    expect(readdirSync(dir)).toEqual(['private.md']); // no temporary file left beside it
  });

  it('follows a symbolic link and writes its target; a dangling link gets its target created', async () => {
    const dir = folder();
    writeFileSync(join(dir, 'target.md'), 'old');
    symlinkSync('target.md', join(dir, 'link.md'));
    symlinkSync(join(dir, 'sub', 'new.md'), join(dir, 'dangling.md'));
    expect((await research(join(dir, 'link.md'))).code).toBe(0);
    expect(lstatSync(join(dir, 'link.md')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(dir, 'link.md'))).toBe('target.md');
    expect(readFileSync(join(dir, 'target.md'), 'utf8')).toMatch(MARKDOWN);

    // The dangling link's target goes through a folder that does not exist yet: refused, untouched.
    const refused = await research(join(dir, 'dangling.md'));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      `agent: Cannot write --out ${join(dir, 'dangling.md')}: the folder ${join(dir, 'sub')} does not exist.\n`,
    );
    symlinkSync('created.md', join(dir, 'dangling2.md'));
    expect((await research(join(dir, 'dangling2.md'))).code).toBe(0);
    expect(lstatSync(join(dir, 'dangling2.md')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(dir, 'created.md'), 'utf8')).toMatch(MARKDOWN);
  });

  it('writes into a FIFO in place for the reader on the other end', async () => {
    const fifo = join(folder(), 'answer.fifo');
    execFileSync('mkfifo', [fifo]);
    const received = new Promise<string>((resolve, reject) => {
      let text = '';
      createReadStream(fifo, 'utf8')
        .on('data', (d) => {
          text += d;
        })
        .on('end', () => resolve(text))
        .on('error', reject);
    });
    const r = await research(fifo);
    expect(r.code).toBe(0);
    expect(await received).toMatch(MARKDOWN);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
  });

  it.skipIf(!isRoot)('writes to /dev/null as root without replacing it', async () => {
    const r = await research('/dev/null');
    expect(r.code).toBe(0);
    expect(statSync('/dev/null').isCharacterDevice()).toBe(true);
  });

  it('/dev/stdout is the same stdout: the Markdown follows the answer', async () => {
    const r = await research('/dev/stdout');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^No model was used[\s\S]*\nSources\n[\s\S]*\n# How much can a support agent/);
    expect(statSync('/dev/stdout').isFile()).toBe(false);
  });

  it('- writes the Markdown to stdout in place of the usual output; not with --json', async () => {
    const r = await research('-');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(MARKDOWN);
    expect(r.stdout).toMatch(/## Sources\n\n1\. Refunds Policy — `.*refunds\.md`/);
    expect(r.stdout).not.toMatch(/^No model was used \(extractive mode\)/m); // the display is not repeated
    expect(r.stderr).toMatch(/Citations check out/);
    expect(r.stderr).not.toMatch(/Written to/);

    const json = await research('-', ['--json']);
    expect(json.code).toBe(2);
    expect(json.stdout).toBe('');
    expect(json.stderr).toBe('agent: --out - and --json both write to stdout: choose one.\n');
  });

  it('an empty path is a usage error', async () => {
    const r = await research('');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error: option '-o, --out <file>' argument '' is invalid\. it is empty/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('a folder, a missing folder or a socket is refused with the reason', async () => {
    const dir = folder();
    expect((await research(dir)).stderr).toBe(`agent: Cannot write --out ${dir}: it is a folder.\n`);
    const missing = join(dir, 'no', 'x.md');
    expect((await research(missing)).stderr).toBe(
      `agent: Cannot write --out ${missing}: the folder ${join(dir, 'no')} does not exist.\n`,
    );
    const socket = join(dir, 'agent.sock');
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    try {
      const r = await research(socket);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(
        `agent: Cannot write --out ${socket}: it is a socket, which cannot be written as a file.\n`,
      );
    } finally {
      server.close();
    }
  });
});

describe('an --out that cannot be written costs no model call', () => {
  let server: Awaited<ReturnType<typeof startFakeServer>>;
  beforeAll(async () => {
    server = await startFakeServer([], () => sse(chatSse({ text: 'unused' })));
  });
  afterAll(() => server.close());

  it('/proc/version is refused before the run with what Linux says', async () => {
    const r = await runCli(
      [
        'research',
        QUESTION,
        '--provider',
        'openai-compatible',
        '--large-model',
        'l',
        '--small-model',
        's',
      ].concat(['--out', '/proc/version']),
      { env: { OPENAI_BASE_URL: `${server.url}/v1`, AGENT_DB: tempDb() } },
    );
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    // Root may open it but the kernel takes no new file in /proc; anyone else lacks the permission.
    expect(r.stderr).toBe(
      isRoot
        ? 'agent: Cannot write --out /proc/version: /proc does not accept new files (the text is written beside the file, then renamed over it).\n'
        : 'agent: Cannot write --out /proc/version: permission denied.\n',
    );
    expect(server.requests).toHaveLength(0);
    expect(readFileSync('/proc/version', 'utf8')).toMatch(/^Linux version/);
  });
});

describe('reports --show --out', () => {
  it('writes the saved run through a link, or to stdout with -', async () => {
    const db = tempDb();
    const run = await runCli(['research', QUESTION], { env: { AGENT_DB: db } });
    const id = /Saved as run (\d+)/.exec(run.stderr)![1]!;
    const dir = folder();
    writeFileSync(join(dir, 'target.md'), 'old');
    chmodSync(join(dir, 'target.md'), 0o640);
    symlinkSync('target.md', join(dir, 'link.md'));
    const r = await runCli(['reports', '--show', id, '--out', join(dir, 'link.md')], {
      env: { AGENT_DB: db },
    });
    expect(r.code).toBe(0);
    expect(lstatSync(join(dir, 'link.md')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(dir, 'target.md'), 'utf8')).toMatch(MARKDOWN);
    expect(statSync(join(dir, 'target.md')).mode & 0o777).toBe(0o640);

    const dash = await runCli(['reports', '--show', id, '-o', '-'], { env: { AGENT_DB: db } });
    expect(dash.code).toBe(0);
    expect(dash.stdout).toBe(readFileSync(join(dir, 'target.md'), 'utf8'));
    expect((await runCli(['reports', '--show', id, '-o', ''], { env: { AGENT_DB: db } })).code).toBe(2);
  });
});
