import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatSession } from '../../src/chat/session.js';
import { StoreError } from '../../src/store/errors.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { runCli } from '../support/cli.js';
import { sse, startFakeServer } from '../support/fake-server.js';
import { reply, scriptedProvider, text } from '../support/scripted-provider.js';
import { chatSse } from '../support/sse-builders.js';
import { sqliteStore } from '../support/stores.js';

// A full disk: simulated everywhere by capping the file's pages (SQLite then answers SQLITE_FULL, as it
// does when the disk is full), and real on a small tmpfs where this machine lets the test mount one.

/** A database that cannot grow: its next new page fails as a full disk would. */
async function fullDatabase() {
  const store = await sqliteStore(join(mkdtempSync(join(tmpdir(), 'agent-full-')), 'agent.db'));
  const db = store.db;
  // No free pages either (tables a migration replaced leave some): every write needs a new one.
  db.exec('VACUUM');
  db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true })}`);
  return store;
}

describe('a full disk, simulated', () => {
  it('a write says the disk holding the database is full', async () => {
    const store = await fullDatabase();
    const save = () =>
      store.runs.save({
        question: 'Q',
        mode: 'extractive',
        answer: 'A'.repeat(20_000),
        costUsd: null,
        result: {},
      });
    await expect(save()).rejects.toThrow(StoreError);
    await expect(save()).rejects.toThrow(`the disk holding ${store.location} is full`);
    await store.close();
  });

  it('a chat goes on in memory and says once that it is not being saved', async () => {
    const store = await fullDatabase();
    const provider = scriptedProvider((_, i) => reply([text(`answer ${i} ${'x'.repeat(20_000)}`)]));
    const session = new ChatSession({
      provider,
      model: 'm',
      registry: new ToolRegistry([]),
      maxTurns: 3,
      store,
    });
    const notices: string[] = [];
    const onEvent = (e: { type: string; message?: string }) => {
      if (e.type === 'notice') notices.push(e.message!);
    };
    for (const q of ['one', 'two', 'three']) await session.send(q, { onEvent });
    expect(notices).toEqual([
      expect.stringMatching(/^This chat is no longer being saved \(the disk holding .* is full/),
    ]);
    // The conversation carried on: the model saw every earlier exchange.
    expect(session.history.filter((m) => m.role === 'user').map((m) => m.content)).toEqual([
      'one',
      'two',
      'three',
    ]);
    expect(session.saved).toBe(false);
    expect(await store.sessions.list()).toEqual([]);
    await store.close();
  });
});

// Mounting needs root (and a kernel that allows it): elsewhere the simulated cases above stand in.
const mountPoint = mkdtempSync(join(tmpdir(), 'agent-tmpfs-'));
let mounted = false;
try {
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=3m', 'tmpfs', mountPoint], { stdio: 'ignore' });
  mounted = true;
} catch {
  mounted = false;
}

describe.skipIf(!mounted)('a full disk, on a small tmpfs', () => {
  let server: Awaited<ReturnType<typeof startFakeServer>>;
  beforeAll(async () => {
    server = await startFakeServer([], sse(chatSse({ text: 'Noted.' })));
  });
  afterAll(async () => {
    await server.close();
    execFileSync('umount', [mountPoint]);
  });

  it('reading commands work, writes say the disk is full, a chat goes on', async () => {
    const db = join(mountPoint, 'agent.db');
    const content = mkdtempSync(join(tmpdir(), 'agent-content-'));
    writeFileSync(join(content, 'refunds.md'), '# Refunds\n\nThe refund limit is $200.\n');
    const env = { AGENT_DB: db, OPENAI_BASE_URL: `${server.url}/v1` };
    expect(
      (await runCli(['research', '--extractive', '--content', content, 'refund limit'], { env })).code,
    ).toBe(0);
    // Fill the disk.
    try {
      writeFileSync(join(mountPoint, 'filler'), Buffer.alloc(8 << 20));
    } catch {}

    for (const command of ['reports', 'sessions', 'cost', 'notes']) {
      const r = await runCli([command], { env });
      expect(r.code).toBe(0);
      expect(r.stderr).toMatch(/the disk holding .* is full: reading works/i);
    }
    expect((await runCli(['reports'], { env })).stdout).toContain('refund limit');

    // New files to index need space: exit 1, with the real reason.
    mkdirSync(join(content, 'more'));
    for (let i = 0; i < 40; i++)
      writeFileSync(join(content, 'more', `${i}.md`), `# Doc ${i}\n\n${'word '.repeat(20_000)}\n`);
    const research = await runCli(['research', '--extractive', '--content', content, 'refund limit'], {
      env,
    });
    expect(research.stderr).toContain(`agent: the disk holding ${db} is full`);
    expect(research.stderr).not.toMatch(/unexpected error/);
    expect(research.code).toBe(1);

    const chat = await runCli(['chat', '--provider', 'openai-compatible', '--model', 'local-model'], {
      env,
      input: 'one\ntwo\n',
    });
    expect(chat.stdout).toBe('Noted.\nNoted.\n');
    expect(chat.stderr.match(/no longer being saved/g)).toHaveLength(1);
    expect(chat.code).toBe(0);
  });
});
