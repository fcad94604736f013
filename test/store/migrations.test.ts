import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate, migrations } from '../../src/store/migrations.js';
import { openStore } from '../../src/store/open.js';
import { tempDb } from '../support/cli.js';

const columns = (db: Database.Database, table: string) =>
  (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name);

describe('migrations', () => {
  it('bring an empty database to the current schema and record each step by name', () => {
    const db = new Database(':memory:');
    const ran = migrate(db);
    expect(ran).toEqual(migrations.map((m) => m.name));
    const recorded = (
      db.prepare('SELECT name FROM schema_migrations ORDER BY name').all() as { name: string }[]
    ).map((r) => r.name);
    expect(recorded).toEqual(migrations.map((m) => m.name).sort());
    expect(columns(db, 'usage_ledger')).toEqual([
      'id',
      'ts',
      'command',
      'run_id',
      'step',
      'provider',
      'model',
      'input_tokens',
      'cache_read_tokens',
      'cache_write_tokens',
      'output_tokens',
      'reasoning_tokens',
      'price_input',
      'price_output',
      'price_cache_read',
      'price_cache_write',
      'price_source',
      'cost_usd',
    ]);
    expect(columns(db, 'notes')).toEqual(['id', 'content', 'title', 'tags', 'created_at']);
    expect(columns(db, 'documents')).toEqual([
      'id',
      'root',
      'slug',
      'path',
      'title',
      'body',
      'mtime_ms',
      'size',
    ]);
    const fts = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'notes_fts'").get() as { sql: string };
    expect(fts.sql).toMatch(/USING fts5/i);
  });

  it('run each step only once', () => {
    const db = new Database(':memory:');
    migrate(db);
    expect(migrate(db)).toEqual([]);
  });

  it('open the file in WAL mode with a busy timeout', () => {
    const db = openStore(tempDb());
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('busy_timeout', { simple: true })).toBeGreaterThanOrEqual(1000);
    db.close();
  });
});
