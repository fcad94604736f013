import { readFileSync } from 'node:fs';
import PgBoss from 'pg-boss';
import { ConfigError } from '../errors.js';
import { dbFile } from '../store/migrations-dir.js';
import type { Db } from '../store/postgres/db.js';

// The job queue: pg-boss (10.x, the last line for Node 20) in the team's PostgreSQL, in a schema of its
// own. pg-boss claims jobs with SELECT … FOR UPDATE SKIP LOCKED, retries with back-off, and expires the
// lease of a job whose worker went away; it polls instead of LISTEN/NOTIFY and keeps no session state,
// so it works through pgbouncer's transaction pooling. Its SQL goes through agent's own pool (Db), whose
// connections pin search_path like every other.

/** pg-boss's tables live here, apart from agent's own. */
export const QUEUE_SCHEMA = 'agent_queue';
/** One queue for every batch: members may not create queues (a queue is a table partition). */
export const QUEUE_NAME = 'research';

/** Seconds a worker's hold on a job lasts without renewal (AGENT_QUEUE_LEASE); renewed a third of the way. */
export function leaseSeconds(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.AGENT_QUEUE_LEASE;
  if (!raw) return 60;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 3600)
    throw new ConfigError(`AGENT_QUEUE_LEASE=${raw} is not a lease: expected whole seconds from 1 to 3600.`);
  return n;
}

/** pg-boss's executor over agent's pool: one statement (or a BEGIN…COMMIT script) per checkout. */
const executor = (db: Db) => ({
  async executeSql(text: string, values?: unknown[]) {
    const client = await db.connect();
    let broken: Error | undefined;
    try {
      return await client.query(text, values as unknown[]);
    } catch (error) {
      broken = error as Error;
      throw error;
    } finally {
      client.release(broken);
    }
  },
});

export type Boss = PgBoss;

/**
 * A pg-boss instance on the store's pool. `install`: create or upgrade its schema and the research queue
 * (the admin's `agent db migrate`); otherwise the schema must be there and current.
 */
export async function startBoss(db: Db, options: { install?: boolean } = {}): Promise<Boss> {
  const boss = new PgBoss({
    db: executor(db),
    schema: QUEUE_SCHEMA,
    migrate: Boolean(options.install),
    // Lease expiry and clean-up are run by the workers themselves (worker.ts), at the lease's pace.
    supervise: false,
    schedule: false,
  });
  // Failures surface where the call was made; the emitter must not crash the process meanwhile.
  boss.on('error', () => {});
  try {
    await boss.start();
  } catch (error) {
    if (/not installed|requires migrations/.test(String(error)))
      throw new ConfigError(
        `The job queue is not set up in the database at ${db.location}: ask your admin to run \`agent db migrate\` (as the role that owns agent's tables).`,
      );
    throw error;
  }
  if (options.install) {
    await boss.createQueue(QUEUE_NAME, {
      name: QUEUE_NAME,
      policy: 'standard',
      // A job's outcome is recorded in batch_items: pg-boss retries only what must run again (a lease
      // lost, a 429, a lost server), with back-off, and never gives up on those.
      retryLimit: 1_000_000,
      retryDelay: 1,
      retryBackoff: true,
    });
  }
  return boss;
}

/**
 * `agent db migrate` by the admin: the queue's schema, its research queue, and the members' grants on
 * it (db/queue-grants.sql, when the role agent_member exists). Returns whether anything was created.
 */
export async function installQueue(db: Db): Promise<boolean> {
  const before = await db.one<{ t: string | null }>(
    `SELECT pg_catalog.to_regclass('${QUEUE_SCHEMA}.version')::text AS t`,
  );
  const boss = await startBoss(db, { install: true });
  await boss.stop({ graceful: false, close: false });
  const member = await db.one<{ ok: boolean }>(
    "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'agent_member') AS ok",
  );
  if (member?.ok) await db.query(readFileSync(dbFile('queue-grants.sql'), 'utf8'));
  return !before?.t;
}

/** Whether this role may create the queue's schema (the admin, or a quick start's superuser). */
export async function mayInstall(db: Db): Promise<boolean> {
  const row = await db.one<{ ok: boolean }>(
    `SELECT CASE WHEN pg_catalog.to_regnamespace($1) IS NULL
       THEN pg_catalog.has_database_privilege(pg_catalog.current_database(), 'CREATE')
       ELSE pg_catalog.pg_has_role((SELECT nspowner FROM pg_catalog.pg_namespace WHERE nspname = $1), 'USAGE')
     END AS ok`,
    [QUEUE_SCHEMA],
  );
  return Boolean(row?.ok);
}
