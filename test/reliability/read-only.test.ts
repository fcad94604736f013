import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { sse, startFakeServer } from '../support/fake-server.js';
import { chatSse } from '../support/sse-builders.js';

// A database that cannot be written: a read-only bind mount when running as root (file modes do not stop
// root), the file and folder modes otherwise.

let server: Awaited<ReturnType<typeof startFakeServer>>;
const cleanup: (() => void)[] = [];
beforeAll(async () => {
  server = await startFakeServer([], sse(chatSse({ text: 'Noted.' })));
});
afterAll(async () => {
  await server.close();
  for (const undo of cleanup.reverse()) undo();
});

/** The folder holding the database, made read-only; undefined when this machine does not allow it. */
function readOnly(folder: string): string | undefined {
  if (process.getuid?.() !== 0) {
    chmodSync(join(folder, 'agent.db'), 0o444);
    chmodSync(folder, 0o555);
    cleanup.push(() => chmodSync(folder, 0o755));
    return folder;
  }
  const view = mkdtempSync(join(tmpdir(), 'agent-ro-'));
  try {
    execFileSync('mount', ['--bind', folder, view], { stdio: 'ignore' });
    execFileSync('mount', ['-o', 'remount,bind,ro', view], { stdio: 'ignore' });
  } catch {
    return undefined;
  }
  cleanup.push(() => execFileSync('umount', [view]));
  return view;
}

it('reads work, research answers without saving or indexing, a chat goes on', async (context) => {
  const folder = mkdtempSync(join(tmpdir(), 'agent-db-'));
  const content = mkdtempSync(join(tmpdir(), 'agent-content-'));
  writeFileSync(join(content, 'refunds.md'), '# Refunds\n\nThe refund limit is $200.\n');
  const question = ['research', '--extractive', '--content', content, 'refund limit'];
  expect((await runCli(question, { env: { AGENT_DB: join(folder, 'agent.db') } })).code).toBe(0);
  const view = readOnly(folder);
  if (!view) return context.skip('this machine does not allow a read-only mount');
  const env = { AGENT_DB: join(view, 'agent.db'), OPENAI_BASE_URL: `${server.url}/v1` };

  for (const command of ['reports', 'sessions', 'cost', 'notes']) {
    const r = await runCli([command], { env });
    expect(r.stderr).toBe(
      `agent: The database at ${env.AGENT_DB} is read-only: reading works, but nothing is saved.\n`,
    );
    expect(r.code).toBe(0);
  }

  // A new file is not indexed: the index is used as it is.
  mkdirSync(join(content, 'more'));
  writeFileSync(join(content, 'more', 'travel.md'), '# Travel\n\nThe hotel limit is $300.\n');
  const research = await runCli(question, { env });
  expect(research.stdout).toContain('The refund limit is $200.');
  expect(research.stderr).toMatch(/the document index is used as it is/);
  expect(research.stderr).toContain(`This run could not be saved: the database ${env.AGENT_DB} is read-only`);
  expect(research.stderr).not.toMatch(/Saved as run|unexpected error/);
  expect(research.code).toBe(0);

  const chat = await runCli(['chat', '--provider', 'openai-compatible', '--model', 'local-model'], {
    env,
    input: 'one\ntwo\n',
  });
  expect(chat.stdout).toBe('Noted.\nNoted.\n');
  expect(chat.stderr.match(/no longer being saved \(the database .* is read-only/g)).toHaveLength(1);
  expect(chat.code).toBe(0);
});
