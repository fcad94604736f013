import { readFileSync } from 'node:fs';
import pg from 'pg';
import { openPostgres } from '../../src/store/postgres/open.js';
import type { PostgresStore } from '../../src/store/postgres/store.js';
import type { TestDatabase } from './pg.js';

// A team member on a test database: a login role IN agent_member (db/roles.sql), using agent through the
// store and plain SQL, as an ill-meaning teammate would. On a real server the member connects as its
// role; PGlite serves every connection as one session, so there the member's work runs under SET
// SESSION AUTHORIZATION (which changes session_user, as a login does) and is reset afterwards.

export const ROLES_SQL = readFileSync(new URL('../../db/roles.sql', import.meta.url), 'utf8');

export interface Member {
  role: string;
  /** `work` as this member: its store, and its own SQL. */
  as<T>(
    work: (
      store: PostgresStore,
      sql: <R = Record<string, unknown>>(text: string, params?: unknown[]) => Promise<R[]>,
    ) => Promise<T>,
  ): Promise<T>;
  close(): Promise<void>;
}

/** Creates the login role (dropping a leftover of an earlier run) IN `group`, and its member. */
export async function member(
  db: TestDatabase,
  role: string,
  options: { group?: 'agent_member' | 'agent_shared'; user?: string } = {},
): Promise<Member> {
  await dropRoles(db, [role]);
  await db.sql(`CREATE ROLE ${role} LOGIN PASSWORD '${role}-pw' IN ROLE ${options.group ?? 'agent_member'}`);
  const env = { AGENT_USER: options.user ?? role };
  if (db.lite) {
    let store: PostgresStore | undefined;
    return {
      role,
      async as(work) {
        await db.sql(`SET SESSION AUTHORIZATION ${role}`);
        try {
          store ??= await openPostgres(db.url, { env });
          return await work(store, (text, params) => db.sql(text, params));
        } finally {
          await db.sql('SET SESSION AUTHORIZATION postgres');
        }
      },
      close: async () => store?.close(),
    };
  }
  const url = new URL(db.url);
  url.username = role;
  url.password = `${role}-pw`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 1 });
  pool.on('error', () => {});
  let store: PostgresStore | undefined;
  return {
    role,
    async as(work) {
      store ??= await openPostgres(url.toString(), { env });
      return work(store, async (text, params) => (await pool.query(text, params)).rows);
    },
    async close() {
      await store?.close();
      await pool.end();
    },
  };
}

/** Roles are the server's, not the database's: what they own here goes, then they do. */
export async function dropRoles(db: TestDatabase, roles: string[]): Promise<void> {
  for (const role of roles)
    await db
      .sql(`DROP OWNED BY ${role}; DROP ROLE ${role}`)
      .catch(() => db.sql(`DROP ROLE IF EXISTS ${role}`).catch(() => {}));
}

/** db/roles.sql, retried once: two test files making the roles at the same moment can collide. */
export async function makeTeamRoles(db: TestDatabase): Promise<void> {
  await db.sql(ROLES_SQL).catch(() => db.sql(ROLES_SQL));
}
