import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { refreshIndex } from '../../src/research/documents/index.js';
import { runCli, tempDb } from '../support/cli.js';
import { sse, startFakeServer } from '../support/fake-server.js';
import { chatSse } from '../support/sse-builders.js';
import { sqliteStore } from '../support/stores.js';

// Real processes on one database: 8 research runs indexing the same folder of 2,000 files, 2 piped chats
// and readers, all at once. None may fail, the folder is indexed once, and every answer is saved.

let server: Awaited<ReturnType<typeof startFakeServer>>;
beforeAll(async () => {
  server = await startFakeServer([], sse(chatSse({ text: 'Noted.' })));
});
afterAll(() => server.close());

it('8 research runs, 2 chats and readers share one database without a failure', async () => {
  const content = mkdtempSync(join(tmpdir(), 'agent-many-'));
  for (let i = 0; i < 2000; i++) {
    const folder = join(content, `team-${i % 20}`);
    if (i < 20) mkdirSync(folder);
    writeFileSync(join(folder, `doc-${i}.md`), `# Policy ${i}\n\nThe refund limit of team ${i} is $${i}.\n`);
  }
  const db = tempDb();
  const env = { AGENT_DB: db, OPENAI_BASE_URL: `${server.url}/v1` };
  const research = Array.from({ length: 8 }, (_, i) =>
    runCli(['research', '--extractive', '--content', content, `refund limit of team ${i * 7}`], { env }),
  );
  const chats = Array.from({ length: 2 }, (_, i) =>
    runCli(['chat', '--provider', 'openai-compatible', '--model', 'local-model'], {
      env,
      input: `hello ${i}\nsecond ${i}\nthird ${i}\n`,
    }),
  );
  const readers = ['reports', 'sessions', 'cost', 'notes'].map((command) => runCli([command], { env }));
  const results = await Promise.all([...research, ...chats, ...readers]);
  for (const r of results) {
    expect(r.stderr).not.toMatch(/locked|unexpected error/);
    expect(r.code).toBe(0);
  }
  for (const [i, r] of results.slice(0, 8).entries()) {
    expect(r.stdout).toContain(`The refund limit of team ${i * 7} is $${i * 7}.`);
    expect(r.stderr).toMatch(/Saved as run \d+/);
  }
  for (const r of results.slice(8, 10)) expect(r.stdout).toBe('Noted.\nNoted.\nNoted.\n');

  const store = (await sqliteStore(db)).db;
  expect(store.prepare('SELECT count(*) FROM documents').pluck().get()).toBe(2000);
  expect(store.prepare('SELECT count(*) FROM research_runs').pluck().get()).toBe(8);
  expect(store.prepare('SELECT count(*) FROM chat_messages').pluck().get()).toBe(12);
  // No process holds the folder any more.
  expect(store.prepare('SELECT count(*) FROM index_leases').pluck().get()).toBe(0);
  store.close();
});

it('two connections indexing the same folder at once read its files once', async () => {
  const content = mkdtempSync(join(tmpdir(), 'agent-twice-'));
  for (let i = 0; i < 300; i++) writeFileSync(join(content, `doc-${i}.md`), `# Doc ${i}\n\nText ${i}.\n`);
  const path = tempDb();
  const [a, b] = [await sqliteStore(path), await sqliteStore(path)];
  const stats = await Promise.all([refreshIndex(a, content), refreshIndex(b, content)]);
  // One did the work; the other waited for it and found it done, without walking the folder again.
  expect(stats.map((s) => s.added).sort((x, y) => x - y)).toEqual([0, 300]);
  expect(stats.map((s) => s.unchanged).sort((x, y) => x - y)).toEqual([0, 300]);
  expect(a.db.prepare('SELECT count(*) FROM documents').pluck().get()).toBe(300);
  await a.close();
  await b.close();
});

it('a folder left held by a killed process is indexed by the next one at once', async () => {
  const content = mkdtempSync(join(tmpdir(), 'agent-killed-'));
  writeFileSync(join(content, 'a.md'), '# A\n\nText.\n');
  const path = tempDb();
  const store = await sqliteStore(path);
  const db = store.db;
  // A process that has ended (as after SIGKILL) still holds the folder, with a fresh heartbeat.
  const child = spawnSync(process.execPath, ['-e', '0']);
  db.prepare('INSERT INTO index_leases (root, holder, heartbeat) VALUES (?, ?, ?)').run(
    content,
    `${hostname()}:${child.pid}:dead`,
    Date.now(),
  );
  const started = Date.now();
  expect((await refreshIndex(store, content)).added).toBe(1);
  // Not after the 60 s a heartbeat takes to go stale (a loaded machine is slow, not that slow).
  expect(Date.now() - started).toBeLessThan(30_000);
  await store.close();
});
