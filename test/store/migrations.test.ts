import { chmodSync, existsSync, readFileSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate, migrations } from '../../src/store/sqlite/migrations.js';
import { openDatabase } from '../../src/store/sqlite/open.js';
import { runCli, tempDb } from '../support/cli.js';

const columns = (db: Database.Database, table: string) =>
  (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name);

const names = () => migrations().map((m) => m.name);

/** A database file as agent 0.0.1 left it, with a row in each table. */
function oldDatabase(): string {
  const path = tempDb();
  const db = new Database(path);
  db.exec(readFileSync(new URL('../fixtures/db/v0.0.1.sql', import.meta.url), 'utf8'));
  db.close();
  return path;
}

describe('migrations', () => {
  it('are the SQL files of db/migrations/sqlite, in order', () => {
    expect(names().slice(0, 3)).toEqual(['001_usage_ledger', '002_notes', '003_documents']);
    expect([...names()].sort()).toEqual(names());
  });

  it('bring an empty database to the current schema and record each step by name', () => {
    const db = new Database(':memory:');
    const ran = migrate(db);
    expect(ran).toEqual(names());
    const recorded = (
      db.prepare('SELECT name FROM schema_migrations ORDER BY name').all() as { name: string }[]
    ).map((r) => r.name);
    expect(recorded).toEqual(names());
    expect(columns(db, 'usage_ledger')).toEqual(
      expect.arrayContaining(['id', 'ts', 'command', 'run_id', 'step', 'provider', 'model', 'cost_usd']),
    );
    expect(columns(db, 'notes')).toEqual(['id', 'content', 'title', 'tags', 'created_at', 'created_by']);
    expect(columns(db, 'documents')).toEqual(
      expect.arrayContaining(['id', 'root', 'slug', 'path', 'title', 'mtime_ms', 'size']),
    );
    expect(columns(db, 'document_blocks')).toEqual(['id', 'document_id', 'start_offset', 'data']);
    const fts = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'notes_fts'").get() as { sql: string };
    expect(fts.sql).toMatch(/USING fts5/i);
  });

  it('run each step only once', () => {
    const db = new Database(':memory:');
    migrate(db);
    expect(migrate(db)).toEqual([]);
  });

  it('upgrade a database made by agent 0.0.1 in place, keeping its rows', () => {
    const path = oldDatabase();
    const db = openDatabase(path);
    const recorded = (
      db.prepare('SELECT name FROM schema_migrations ORDER BY name').all() as { name: string }[]
    ).map((r) => r.name);
    expect(recorded).toEqual(names());
    expect(db.prepare('SELECT cost_usd FROM usage_ledger').pluck().get()).toBe(0.006);
    expect(db.prepare("SELECT content FROM notes_fts WHERE notes_fts MATCH 'refund'").pluck().get()).toBe(
      'Refund limit is $200',
    );
    expect(db.prepare('SELECT title FROM documents').pluck().get()).toBe('Refunds Policy');
    db.close();
  });

  it('refuse a database written by a newer version, without changing it', async () => {
    const path = oldDatabase();
    const db = new Database(path);
    db.prepare("INSERT INTO schema_migrations (name, applied_at) VALUES ('999_from_the_future', 1)").run();
    db.close();
    // A rollback-journal file, readable by others: neither its journal mode nor its permissions change.
    chmodSync(path, 0o644);
    const before = readFileSync(path);
    const r = await runCli(['--db', path, 'notes']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/newer version of agent.*999_from_the_future/);
    expect(r.stderr).not.toMatch(/at .*\.js:\d+/);
    expect(readFileSync(path).equals(before)).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o644);
    expect(existsSync(`${path}-wal`)).toBe(false);
    expect(r.stderr).not.toMatch(/Tightened/);
  });

  it('mark an up-to-date database by its step count, and refuse one a newer version moved past it', () => {
    const path = tempDb();
    openDatabase(path).close();
    const db = new Database(path);
    expect(db.pragma('user_version', { simple: true })).toBe(names().length);
    // What a newer version does: one more step, and the count it knows.
    const future = {
      name: '999_from_the_future',
      up: (d: Database.Database) => d.exec('CREATE TABLE f (x)'),
    };
    expect(migrate(db, [...migrations(), future])).toEqual(['999_from_the_future']);
    expect(db.pragma('user_version', { simple: true })).toBe(names().length + 1);
    db.close();
    expect(() => openDatabase(path)).toThrow(/newer version of agent.*999_from_the_future/);
  });

  it('open the file in WAL mode with a busy timeout', () => {
    const db = openDatabase(tempDb());
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('busy_timeout', { simple: true })).toBeGreaterThanOrEqual(1000);
    db.close();
  });
});
