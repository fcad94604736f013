import { existsSync, mkdtempSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { addNote } from '../../src/store/sqlite/notes.js';
import { openDatabase } from '../../src/store/sqlite/open.js';
import { runCli, tempDb } from '../support/cli.js';

// A database whose pages in the middle were overwritten, as a bad disk or a stray write would.

function contentFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agent-content-'));
  for (let i = 0; i < 60; i++)
    writeFileSync(
      join(dir, `team-${i}.md`),
      `# Team ${i}\n\n${`The refund limit of team ${i} is $${i}. `.repeat(100)}\n`,
    );
  return dir;
}

/** Overwrites `count` leaf pages of `table` (from the middle of its pages) with garbage. */
function damage(path: string, table: string, count: number): void {
  const db = openDatabase(path);
  const pages = db
    .prepare("SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY pageno")
    .pluck()
    .all(table) as number[];
  const size = db.pragma('page_size', { simple: true }) as number;
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  const middle = pages.slice(Math.floor(pages.length / 2), Math.floor(pages.length / 2) + count);
  expect(middle).toHaveLength(count);
  const fd = openSync(path, 'r+');
  for (const page of middle) writeSync(fd, Buffer.alloc(size, 0x5a), 0, size, (page - 1) * size);
}

async function setUp() {
  const db = tempDb();
  const content = contentFolder();
  const first = await runCli(['research', '--extractive', '--content', content, 'refund limit of team 3'], {
    env: { AGENT_DB: db },
  });
  expect(first.code).toBe(0);
  const store = openDatabase(db);
  for (let i = 0; i < 2000; i++) addNote(store, { content: `note ${i}: ${'keep this '.repeat(20)}` });
  store.close();
  return { db, content };
}

it('damaged notes: a clear message, db check names them, db recover copies every readable row', async () => {
  const { db } = await setUp();
  damage(db, 'notes', 2);

  const notes = await runCli(['notes', '--limit', '5000'], { env: { AGENT_DB: db } });
  expect(notes.stderr).toContain(`agent: the database ${db} is damaged`);
  expect(notes.stderr).toContain('agent db recover --to <file>');
  expect(notes.stderr).not.toMatch(/unexpected error|\n {4}at /);
  expect(notes.code).toBe(1);

  const check = await runCli(['db', 'check'], { env: { AGENT_DB: db } });
  expect(check.stdout).toContain('Damaged tables: notes.');
  expect(check.code).toBe(1);
  const json = JSON.parse((await runCli(['db', 'check', '--json'], { env: { AGENT_DB: db } })).stdout);
  expect(json).toMatchObject({ path: db, ok: false, damagedTables: ['notes'], onlyDocumentIndex: false });

  const copy = join(mkdtempSync(join(tmpdir(), 'agent-recovered-')), 'copy.db');
  const recover = await runCli(['db', 'recover', '--to', copy, '--json'], { env: { AGENT_DB: db } });
  expect(recover.code).toBe(0);
  const tables = Object.fromEntries(
    (JSON.parse(recover.stdout).tables as { table: string; copied: number; lost: unknown[] }[]).map((t) => [
      t.table,
      t,
    ]),
  );
  // Two pages of notes are lost (a page holds a few dozen), everything else is kept.
  expect(tables.notes!.copied).toBeGreaterThan(1900);
  expect(tables.notes!.copied).toBeLessThan(2000);
  expect(tables.notes!.lost).toHaveLength(1);
  expect(tables.research_runs).toMatchObject({ copied: 1, lost: [] });
  const reports = await runCli(['reports', '--json'], { env: { AGENT_DB: copy } });
  expect(JSON.parse(reports.stdout)).toHaveLength(1);
  expect((await runCli(['db', 'check'], { env: { AGENT_DB: copy } })).code).toBe(0);

  // recover never replaces a file.
  const again = await runCli(['db', 'recover', '--to', copy], { env: { AGENT_DB: db } });
  expect(again.stderr).toMatch(/already exists/);
  expect(again.code).toBe(2);
});

it('a damaged document index is cleared and made again from the files by the next run', async () => {
  const { db, content } = await setUp();
  damage(db, 'documents', 1);
  const r = await runCli(['research', '--extractive', '--content', content, 'refund limit of team 42'], {
    env: { AGENT_DB: db },
  });
  expect(r.stderr).toMatch(/document index in .* was damaged: it was cleared and is being rebuilt/);
  expect(r.stdout).toContain('The refund limit of team 42 is $42.');
  expect(r.code).toBe(0);
  const check = await runCli(['db', 'check'], { env: { AGENT_DB: db } });
  expect(check.stdout).toMatch(/^ok: /);
  const notes = openDatabase(db);
  expect(notes.prepare('SELECT count(*) FROM notes').pluck().get()).toBe(2000);
  notes.close();
});

it('db check clears a damaged full-text index of passages', async () => {
  const { db } = await setUp();
  damage(db, 'passages_fts_data', 2);
  const check = await runCli(['db', 'check', '--json'], { env: { AGENT_DB: db } });
  expect(JSON.parse(check.stdout)).toMatchObject({ ok: false, onlyDocumentIndex: true, indexCleared: true });
  expect(check.code).toBe(0);
  expect((await runCli(['db', 'check'], { env: { AGENT_DB: db } })).stdout).toMatch(/^ok: /);
});

it('db check on a missing file is a usage error that creates nothing', async () => {
  const db = tempDb();
  const r = await runCli(['db', 'check'], { env: { AGENT_DB: db } });
  expect(r.stderr).toBe(`agent: There is no database at ${db}: nothing to check or recover.\n`);
  expect(r.code).toBe(2);
  expect(existsSync(db)).toBe(false);
});
