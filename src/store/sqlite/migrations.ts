import { readdirSync, readFileSync } from 'node:fs';
import type { Database } from 'better-sqlite3';
import { migrationsDir } from '../migrations-dir.js';

// The schema lives in db/migrations/sqlite/ as plain SQL files, applied in file-name order. Each runs once,
// inside a transaction, and is recorded in `schema_migrations` by its name (the file name without .sql).
// Never edit a file that has shipped: add a new one.
export interface Migration {
  name: string;
  up(db: Database): void;
}

export const MIGRATIONS_DIR = migrationsDir('sqlite');

export function loadMigrations(dir: URL = MIGRATIONS_DIR): Migration[] {
  return (
    readdirSync(dir)
      .filter((f) => /^\d+_[\w-]+\.sql$/.test(f))
      .sort()
      // Only the names are needed to see what is applied; a step's SQL is read when it runs.
      .map((file) => ({
        name: file.replace(/\.sql$/, ''),
        up: (db) => db.exec(readFileSync(new URL(file, dir), 'utf8')),
      }))
  );
}

let cached: Migration[] | undefined;
/** The shipped migrations, read once per process. */
export const migrations = (): Migration[] => {
  cached ??= loadMigrations();
  return cached;
};

/** A database that has a step this version does not know was written by a newer version. */
export class NewerSchemaError extends Error {}

/**
 * Refuses a database written by a newer version, by reading only: called before anything (WAL mode,
 * permissions, migrations) could change the file.
 */
export function refuseNewerSchema(db: Database, steps: Migration[] = migrations()): void {
  const hasTable = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
    .get();
  if (!hasTable) return;
  const known = new Set(steps.map((s) => s.name));
  const unknown = (db.prepare('SELECT name FROM schema_migrations ORDER BY name').all() as { name: string }[])
    .map((r) => r.name)
    .filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new NewerSchemaError(
      `it was written by a newer version of agent (unknown schema step ${unknown.join(', ')}); upgrade agent, or set AGENT_DB to another file`,
    );
  }
}

/** The steps not yet applied to this database, read without writing anything. */
export function pendingMigrations(db: Database, steps: Migration[] = migrations()): Migration[] {
  const hasTable = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
    .get();
  if (!hasTable) return steps;
  const applied = new Set(db.prepare('SELECT name FROM schema_migrations').pluck().all() as string[]);
  return steps.filter((s) => !applied.has(s.name));
}

/**
 * Whether every step is applied, from the database header alone: `migrate` sets PRAGMA user_version to
 * the number of steps once all are applied, so an up-to-date database costs one read at each start
 * instead of the schema table's queries. Steps are only ever added, so the count names the set; one
 * written by a newer version has a larger count, and an older version's leaves it short (or 0).
 */
export const isCurrent = (db: Database, steps: Migration[] = migrations()): boolean =>
  db.pragma('user_version', { simple: true }) === steps.length;

export function migrate(db: Database, steps: Migration[] = migrations()): string[] {
  if (isCurrent(db, steps)) return [];
  refuseNewerSchema(db, steps);
  db.exec(
    'CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)',
  );
  const applied = new Set(
    (db.prepare('SELECT name FROM schema_migrations').all() as { name: string }[]).map((r) => r.name),
  );
  const ran: string[] = [];
  for (const step of steps) {
    if (applied.has(step.name)) continue;
    // IMMEDIATE takes the write lock first, so two processes starting at once cannot both run a step.
    db.transaction(() => {
      const again = db.prepare('SELECT 1 FROM schema_migrations WHERE name = ?').get(step.name);
      if (again) return;
      step.up(db);
      db.prepare('INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)').run(step.name, Date.now());
      ran.push(step.name);
    }).immediate();
  }
  db.pragma(`user_version = ${steps.length}`);
  return ran;
}
