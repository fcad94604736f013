import { readdirSync, readFileSync } from 'node:fs';
import { ConfigError } from '../../errors.js';
import { dbFile, migrationsDir } from '../migrations-dir.js';
import { APP_SCHEMA, type Client, type Db } from './db.js';
import { applyGrants } from './security.js';

// The schema on PostgreSQL: db/migrations/postgres/, the same numbered steps as SQLite's, in file-name
// order. All pending steps run in one transaction under a transaction-level advisory lock, so two
// processes starting at once apply each step once (the second waits, then finds them applied).

export const PG_MIGRATIONS_DIR = migrationsDir('postgres');

/** The lock's key: any constant shared by every agent process ('agent' in ASCII). */
const LOCK_KEY = 0x6167656e74;

export const stepNames = (dir: URL = PG_MIGRATIONS_DIR): string[] =>
  readdirSync(dir)
    .filter((f) => /^\d+_[\w-]+\.sql$/.test(f))
    .sort()
    .map((f) => f.replace(/\.sql$/, ''));

/** The applied steps' names; none when the schema table does not exist yet. */
async function appliedSteps(c: Client | Db): Promise<string[]> {
  const exists = await ('pool' in c ? c.one<{ t: string | null }>(REGCLASS) : first(c, REGCLASS));
  if (!exists?.t) return [];
  const sql = 'SELECT name FROM schema_migrations ORDER BY name';
  const rows = 'pool' in c ? await c.query<{ name: string }>(sql) : (await c.query(sql)).rows;
  return rows.map((r) => (r as { name: string }).name);
}

const REGCLASS = "SELECT pg_catalog.to_regclass('schema_migrations')::text AS t";
const first = async (c: Client, sql: string) =>
  (await c.query(sql)).rows[0] as { t: string | null } | undefined;

function refuseNewer(location: string, applied: string[], known: string[]): void {
  const unknown = applied.filter((name) => !known.includes(name));
  if (unknown.length > 0)
    throw new ConfigError(
      `The database at ${location} cannot be used: it was written by a newer version of agent (unknown schema step ${unknown.join(', ')}); upgrade agent, or set AGENT_DATABASE_URL to another database.`,
    );
}

/** The newest step applied, by number (0 for an empty database). */
export const versionOf = (applied: string[]): number =>
  applied.reduce((max, name) => Math.max(max, Number.parseInt(name, 10) || 0), 0);

/** Pending steps' names, without writing anything (a newer schema is refused). */
export async function pendingSteps(db: Db, dir: URL = PG_MIGRATIONS_DIR): Promise<string[]> {
  const known = stepNames(dir);
  let applied: string[];
  try {
    applied = await appliedSteps(db);
  } catch (error) {
    // A member on a database its admin has not set up yet may not even look into the schema.
    if ((error as { cause?: { code?: string } }).cause?.code === '42501')
      throw askAdmin(db.location, known, error);
    throw error;
  }
  refuseNewer(db.location, applied, known);
  return known.filter((name) => !applied.includes(name));
}

/** A member's role cannot change the schema: only the admin who owns it can. */
function askAdmin(location: string, pending: string[], cause?: unknown): ConfigError {
  const steps =
    pending.length === 1
      ? `schema step ${pending[0]}`
      : `${pending.length} schema steps (${pending[0]} to ${pending.at(-1)})`;
  return new ConfigError(
    `The database at ${location} needs ${steps}, which your role may not apply; ask your admin to run \`agent db migrate\` (as the role that owns agent's tables).`,
    { cause },
  );
}

/**
 * Applies every pending step in one transaction; the names of those this process applied. The team's
 * grants (db/grants.sql) are applied with them, or always with `grants` (`agent db migrate`).
 */
export async function migrate(
  db: Db,
  dir: URL = PG_MIGRATIONS_DIR,
  options: { grants?: boolean } = {},
): Promise<string[]> {
  // The usual case, a current schema, costs one read and takes no lock.
  const pending = await pendingSteps(db, dir);
  if (pending.length === 0 && !options.grants) return [];
  const may = await db.one<{ ok: boolean }>("SELECT pg_catalog.has_schema_privilege($1, 'CREATE') AS ok", [
    APP_SCHEMA,
  ]);
  if (!may?.ok) {
    // A member's `agent db migrate` with nothing pending has nothing to do (the grants are the admin's).
    if (pending.length === 0) return [];
    throw askAdmin(db.location, pending);
  }
  return db.tx(async (c) => {
    // New objects go to the first schema on the path: the app's here, where pg_catalog is still
    // searched first, implicitly (every other connection names it first, and creates nothing).
    await c.query(`SET LOCAL search_path = ${APP_SCHEMA}`);
    await c.query('SELECT pg_catalog.pg_advisory_xact_lock($1::bigint)', [LOCK_KEY]);
    await c.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at bigint NOT NULL)',
    );
    const known = stepNames(dir);
    // Read again under the lock: another process may have applied them while this one waited.
    const applied = await appliedSteps(c);
    refuseNewer(db.location, applied, known);
    const ran: string[] = [];
    for (const name of known) {
      if (applied.includes(name)) continue;
      await c.query(readFileSync(new URL(`${name}.sql`, dir), 'utf8'));
      await c.query('INSERT INTO schema_migrations (name, applied_at) VALUES ($1, $2)', [name, Date.now()]);
      ran.push(name);
    }
    // The vectors' table needs pgvector, which a server may gain later: tried at every migrate.
    if (ran.length > 0 || options.grants) await c.query(readFileSync(dbFile('vectors.sql'), 'utf8'));
    if (ran.length > 0 || options.grants) await applyGrants(c);
    return ran;
  });
}

/** The schema version as `agent db status` shows it. */
export async function schemaVersion(db: Db): Promise<number> {
  return versionOf(await appliedSteps(db));
}
