import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/errors.js';
import { Db } from '../../../src/store/postgres/db.js';
import { migrate, PG_MIGRATIONS_DIR, stepNames } from '../../../src/store/postgres/migrations.js';
import { openTestStore, startTestDatabase, type TestDatabase } from '../../support/pg.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await startTestDatabase();
});
afterAll(() => db?.stop());
beforeEach(() => db.reset());

describe('PostgreSQL migrations', () => {
  it('has the same numbered steps as SQLite, plus people', () => {
    const sqlite = readdirSync(new URL('../../../db/migrations/', import.meta.url))
      .filter((f) => f.endsWith('.sql'))
      .map((f) => f.replace(/\.sql$/, ''));
    const sqliteDir =
      sqlite.length > 0 ? sqlite : stepNames(new URL('../../../db/migrations/sqlite/', import.meta.url));
    for (const name of sqliteDir) expect(stepNames()).toContain(name);
    expect(stepNames().at(-1)).toBe('021_root_passages');
  });

  it('migrates an empty database to the whole schema, and reports version 21', async () => {
    const store = await openTestStore(db);
    try {
      const tables = (
        await db.sql<{ t: string }>(
          "SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public' ORDER BY 1",
        )
      ).map((r) => r.t);
      expect(tables).toEqual(
        expect.arrayContaining([
          'usage_ledger',
          'notes',
          'documents',
          'passage_spans',
          'document_blocks',
          'chat_sessions',
          'chat_messages',
          'research_runs',
          'run_texts',
          'source_texts',
          'page_cache',
          'page_bodies',
          'extraction_cache',
          'run_progress',
          'run_plans',
          'run_searches',
          'run_sources',
          'index_leases',
          'indexed_roots',
          'index_meta',
          'schema_migrations',
          'batches',
          'batch_items',
          'provider_slots',
        ]),
      );
      const gin = await db.sql<{ i: string }>(
        "SELECT indexname AS i FROM pg_indexes WHERE indexdef LIKE '%USING gin%' ORDER BY 1",
      );
      expect(gin.map((r) => r.i)).toEqual([
        'documents_title_tsv',
        'notes_tsv',
        'passage_spans_tsv',
        'research_runs_tsv',
      ]);
      const status = await store.status();
      expect(status).toMatchObject({ kind: 'postgres', schemaVersion: 21 });
      expect(status.counts).toEqual({ reports: 0, notes: 0, sessions: 0, ledger: 0, documents: 0 });
      expect(await store.migrate()).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('applies each step once when two stores open an empty database at once', async () => {
    const [a, b] = await Promise.all([openTestStore(db, 'a'), openTestStore(db, 'b')]);
    await Promise.all([a.close(), b.close()]);
    const rows = await db.sql<{ name: string; n: number }>(
      'SELECT name, count(*)::int AS n FROM schema_migrations GROUP BY name ORDER BY name',
    );
    expect(rows.map((r) => r.name)).toEqual(stepNames());
    expect(rows.every((r) => r.n === 1)).toBe(true);
  });

  it('makes the second of two migrations at once wait for the first, then apply nothing', async () => {
    const a = new Db({ connectionString: db.url }, 'a');
    const b = new Db({ connectionString: db.url }, 'b');
    try {
      const [ranA, ranB] = await Promise.all([migrate(a), migrate(b)]);
      // One of them applied every step, the other found them applied.
      expect([ranA, ranB].map((ran) => ran.length).sort()).toEqual([0, stepNames().length]);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('refuses a database written by a newer version, as SQLite does, and changes nothing', async () => {
    await (await openTestStore(db)).close();
    await db.sql("INSERT INTO schema_migrations (name, applied_at) VALUES ('099_future', 0)");
    const failure = await openTestStore(db).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ConfigError);
    expect((failure as Error).message).toMatch(
      /cannot be used: it was written by a newer version of agent \(unknown schema step 099_future\); upgrade agent/,
    );
    expect((failure as Error).message).not.toContain(':test@');
  });

  it('runs a new step of its own folder in the same transaction as the others', async () => {
    // A copy of the shipped steps with a broken last step: nothing of the run is kept.
    const dir = mkdtempSync(join(tmpdir(), 'pg-steps-'));
    for (const name of stepNames()) {
      const sql = await import('node:fs').then((fs) =>
        fs.readFileSync(new URL(`${name}.sql`, PG_MIGRATIONS_DIR), 'utf8'),
      );
      writeFileSync(join(dir, `${name}.sql`), sql);
    }
    writeFileSync(join(dir, '015_broken.sql'), 'CREATE TABLE nonsense (;');
    const conn = new Db({ connectionString: db.url }, 'x');
    try {
      await expect(migrate(conn, pathToFileURL(`${dir}/`))).rejects.toThrow();
      expect(await db.sql("SELECT to_regclass('schema_migrations')::text AS t")).toEqual([{ t: null }]);
      expect(await db.sql("SELECT to_regclass('notes')::text AS t")).toEqual([{ t: null }]);
    } finally {
      await conn.close();
    }
  });
});
