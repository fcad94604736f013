import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type CliResult, canRunAsNobody, NOBODY, runCli, tempDb } from '../support/cli.js';
import { contentFolder } from '../support/research-world.js';

// The content folder as a careless user or a hostile file name leaves it: the run names what it cannot
// use, never hangs on a FIFO or a device, and never lets a file name break or drive the terminal.

const research = (content: string, question = 'refund') =>
  runCli(['research', '--content', content, question], { env: { AGENT_DB: tempDb() } });

const REFUNDS = '# Refunds\n\nA support agent can refund up to $200 without approval.\n';

describe('special files in the content folder', () => {
  it('skips FIFOs, sockets, devices and links to them with a reason, without opening them', async () => {
    const dir = contentFolder({ 'refunds.md': REFUNDS });
    // A FIFO with no writer: opening it for reading would wait forever, so a hang fails this test.
    execFileSync('mkfifo', [join(dir, 'pipe.md')]);
    symlinkSync(join(dir, 'pipe.md'), join(dir, 'to-pipe.txt'));
    symlinkSync('/dev/zero', join(dir, 'zero.txt'));
    const socket = createServer();
    await new Promise<void>((resolve) => socket.listen(join(dir, 'socket.md'), resolve));
    try {
      const r = await research(dir);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^- A support agent can refund up to \$200 without approval\. \[1\]$/m);
      const skipped = r.stderr.split('\n').filter((l) => l.startsWith('Skipped '));
      expect(skipped).toEqual([
        'Skipped pipe.md: a named pipe (FIFO), not a file',
        'Skipped socket.md: a socket, not a file',
        'Skipped to-pipe.txt: a symbolic link to a named pipe (FIFO), not a file',
        'Skipped zero.txt: a symbolic link to a character device, not a file',
      ]);
    } finally {
      socket.close();
    }
  });
});

describe('file names with control characters', () => {
  it('are shown escaped in the Sources line and in notices, on one line each', async () => {
    const dir = contentFolder({
      'odd\nname\u001b[31m.md': REFUNDS,
      'empty\tfile.md': '',
    });
    const r = await research(dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`[1] Refunds — ${dir}/odd\\nname\\x1b[31m.md\n`);
    expect(r.stderr).toContain('Skipped empty\\tfile.md: empty file (0 bytes)\n');
    expect(`${r.stdout}${r.stderr}`).not.toMatch(/\u001b/);

    const md = await runCli(['research', '--content', dir, 'refund', '--out', '-'], {
      env: { AGENT_DB: tempDb() },
    });
    expect(md.stdout).toContain(`1. Refunds — \`${dir}/odd\\nname\\x1b[31m.md\`\n`);
  });
});

describe('a question of nothing but escape sequences', () => {
  it('is empty: a usage error, as an empty question is', async () => {
    const r = await runCli(['research', '\u001b[2J\u001b]0;title\u0007\r\u0008'], {
      env: { AGENT_DB: tempDb() },
    });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^agent: Ask a question, for example/);
  });
});

/** The built CLI run as `nobody`, with a database it may write. */
function runAsNobody(args: string[]): Promise<CliResult> {
  const home = mkdtempSync(join(tmpdir(), 'agent-nobody-'));
  chmodSync(home, 0o777);
  return runCli(args, { ...NOBODY, env: { HOME: home, AGENT_DB: join(home, 'agent.db') } });
}

describe('a content folder that cannot be used', () => {
  it('a missing one is exit 2 naming it', async () => {
    const missing = join(tmpdir(), 'agent-no-such-folder');
    const r = await research(missing);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `agent: The content folder ${missing} does not exist. Point --content or AGENT_CONTENT_DIR at one.\n`,
    );
  });

  it.skipIf(!canRunAsNobody())('an unreadable one is exit 2 naming it', async () => {
    const dir = contentFolder({ 'refunds.md': REFUNDS });
    chmodSync(dir, 0o700); // root's own: closed to nobody
    const r = await runAsNobody(['research', '--content', dir, 'refund']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `agent: The content folder ${dir} cannot be read: permission denied. Point --content or AGENT_CONTENT_DIR at one.\n`,
    );
  });
});
