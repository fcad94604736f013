import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDb } from '../support/cli.js';
import { openTestStore, startTestDatabase, type TestDatabase } from '../support/pg.js';

// `agent db copy --to postgres://…` through the built CLI: a SQLite history into a team database,
// again without copying anything twice, and each mistake one line.

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

let db: TestDatabase;
const file = tempDb();
beforeAll(async () => {
  db = await startTestDatabase();
  // The CLI makes the file (at the current schema); its rows are written as the store writes them.
  expect((await runCli(['--db', file, 'notes'])).code).toBe(0);
  const s = new Database(file);
  const ledger = s.prepare(
    `INSERT INTO usage_ledger (ts, command, run_id, step, provider, model, input_tokens, cache_read_tokens,
       cache_write_tokens, output_tokens, reasoning_tokens, cost_usd) VALUES (?, ?, ?, 'chat', 'openai', 'gpt-4o-mini', ?, 0, 0, 5, 0, 0.001)`,
  );
  ledger.run(1000, 'chat', 'chat-1', 100);
  ledger.run(2000, 'chat', 'chat-1', 200);
  ledger.run(3000, 'research', 'run-1', 300);
  s.prepare(
    "INSERT INTO notes (content, title, tags, created_at) VALUES ('London hotels: $300', 'Travel', '[\"hotel\"]', 10)",
  ).run();
  s.prepare("INSERT INTO notes (content, tags, created_at) VALUES ('Refunds up to $200', '[]', 20)").run();
  const run = s
    .prepare(
      `INSERT INTO research_runs (created_at, question, mode, answer, cost_usd, result) VALUES (50, 'Hotel limit?', 'model', 'It is $300 [1].', 0.01, '{"b":1,"a":2}') RETURNING id`,
    )
    .get() as { id: number };
  s.prepare(
    `INSERT INTO research_runs (created_at, question, mode, answer, cost_usd, result, status) VALUES (60, 'Unfinished?', 'model', '', NULL, '{}', 'unfinished')`,
  ).run();
  const text = 'London: $300 a night.';
  // Stored by its real hash: a text that does not match its hash is never shown as a source.
  s.prepare('INSERT INTO source_texts (hash, chars, body) VALUES (?, ?, ?)').run(
    sha(text),
    text.length,
    deflateSync(text),
  );
  s.prepare('INSERT INTO run_texts (run_id, n, hash) VALUES (?, 1, ?)').run(run.id, sha(text));
  s.prepare(
    "INSERT INTO chat_sessions (run_id, created_at, updated_at, provider, model, first_message) VALUES ('chat-1', 1000, 2000, 'openai', 'gpt-4o-mini', 'hello')",
  ).run();
  const message = s.prepare(
    "INSERT INTO chat_messages (session_id, seq, exchange, provider, model, message) VALUES (1, ?, 1, 'openai', 'gpt-4o-mini', ?)",
  );
  message.run(0, JSON.stringify({ role: 'user', content: 'hello' }));
  message.run(1, JSON.stringify({ role: 'assistant', content: [{ type: 'text', text: 'hi' }] }));
  s.prepare('INSERT INTO page_bodies (hash, chars, body) VALUES (?, 4, ?)').run(
    sha('page'),
    deflateSync('page'),
  );
  s.prepare(
    `INSERT INTO page_cache (url, final_url, fetched_at, policy, extractor, title, kind, body_hash)
     VALUES ('https://e.x/', 'https://e.x/', 5, '{}', 1, 'E', 'html', ?)`,
  ).run(sha('page'));
  s.prepare(
    "INSERT INTO extraction_cache (source_hash, question, model, prompt_version, facts, created_at) VALUES ('s', 'q', 'm', 1, 'f', 7)",
  ).run();
  s.close();
});
afterAll(() => db?.stop());

describe('agent db copy', () => {
  it('copies reports with their texts, notes, sessions, the ledger and the caches; a second copy copies nothing', async () => {
    const first = await runCli(['--db', file, 'db', 'copy', '--to', db.url, '--json']);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const report = JSON.parse(first.stdout);
    expect(report.copied).toEqual({
      reports: 1,
      notes: 2,
      sessions: 1,
      messages: 2,
      ledger: 3,
      pages: 1,
      extractions: 1,
    });
    expect(report.to).not.toContain(':test@');

    const store = await openTestStore(db);
    try {
      const [saved] = await store.runs.list();
      expect(saved).toMatchObject({ question: 'Hotel limit?', status: 'done', costUsd: 0.01 });
      expect(JSON.stringify((await store.runs.get(saved!.id))!.result)).toBe('{"b":1,"a":2}');
      expect(await store.runs.texts(saved!.id)).toEqual(new Map([[1, 'London: $300 a night.']]));
      expect((await store.notes.list('london')).map((n) => n.title)).toEqual(['Travel']);
      const [session] = await store.sessions.list({ all: true });
      expect(session).toMatchObject({ runId: 'chat-1', exchanges: 1, calls: 2, firstMessage: 'hello' });
      expect((await store.sessions.messages(session!.id)).map((m) => m.message.role)).toEqual([
        'user',
        'assistant',
      ]);
      expect((await store.cache.getPage('https://e.x/'))?.text).toBe('page');
    } finally {
      await store.close();
    }

    const again = await runCli(['--db', file, 'db', 'copy', '--to', db.url]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^Nothing new to copy from .* to postgres:\/\/postgres@[\w.]+:\d+\/\w+\.\n/);
    expect(again.stdout).toContain('Already in the team database: 9 row(s), left as they are.');
  });

  it('appends what a session said since the last copy', async () => {
    const s = new Database(file);
    s.prepare(
      "INSERT INTO chat_messages (session_id, seq, exchange, provider, model, message) VALUES (1, 2, 2, 'openai', 'gpt-4o-mini', ?)",
    ).run(JSON.stringify({ role: 'user', content: 'more' }));
    s.close();
    const result = await runCli(['--db', file, 'db', 'copy', '--to', db.url]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/sessions\s+0 \(1 message\(s\)\)/);
    const [row] = await db.sql<{ n: number }>('SELECT count(*)::int AS n FROM chat_messages');
    expect(row!.n).toBe(3);
  });

  it('says in one line what is wrong: no --to, not a postgres URL, no server there, no file', async () => {
    const noTo = await runCli(['--db', file, 'db', 'copy']);
    expect([noTo.code, noTo.stderr.trim().split('\n')]).toEqual([
      2,
      [expect.stringContaining('db copy needs the team database')],
    ]);
    const http = await runCli(['--db', file, 'db', 'copy', '--to', 'http://example.com/db']);
    expect(http.code).toBe(2);
    expect(http.stderr).toContain('--to must be a postgres:// or postgresql:// URL');
    const down = await runCli(['--db', file, 'db', 'copy', '--to', 'postgresql://alice:pw@127.0.0.1:1/team']);
    expect(down.code).toBe(2);
    expect(down.stderr.trim().split('\n')).toHaveLength(1);
    expect(down.stderr).toContain('nothing is listening at 127.0.0.1:1');
    expect(down.stderr).not.toContain(':pw@');
    const none = await runCli(['--db', `${file}.missing`, 'db', 'copy', '--to', db.url]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('There is no database at');
  });
});
