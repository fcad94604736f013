import { randomUUID } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { afterAll, onTestFinished } from 'vitest';
import { openPostgres } from '../../src/store/postgres/open.js';
import type { PostgresStore } from '../../src/store/postgres/store.js';
import type { Store } from '../../src/store/store.js';
import { servePglite } from './pglite-server.js';

// A PostgreSQL database for one test file, reached through the real `pg` driver over the wire protocol:
// PGlite (PostgreSQL compiled to WebAssembly) served on a loopback port with pglite-socket's connection
// handling (pglite-server.ts), or, when AGENT_TEST_DATABASE_URL names a real server, a fresh database
// created on it (dropped at the end).
//
// PGlite is one backend shared by every connection: their transactions take turns (as row locks would
// make them on a server), but session state is shared, and any user, password and database name is
// accepted. Tests of passwords and roles therefore also run on a real server or a scripted one.

export interface TestDatabase {
  /** postgres://… of the database. */
  url: string;
  /** True on PGlite, where every user name and password is accepted. */
  lite: boolean;
  /** An admin connection's query (the tests' own set-up and checks). */
  sql<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  /** Cuts every connection to the database but the harness's own, as a network failure would. */
  dropConnections(): Promise<void>;
  /** Empties the database: every table, policy and migration step goes. */
  reset(): Promise<void>;
  stop(): Promise<void>;
}

/** `vector`: PGlite with pgvector loaded (a real server has it or not, as it is installed). */
export async function startTestDatabase(options: { vector?: boolean } = {}): Promise<TestDatabase> {
  const real = process.env.AGENT_TEST_DATABASE_URL;
  return real ? onServer(real) : onPglite(options.vector ?? false);
}

async function onPglite(withVector: boolean): Promise<TestDatabase> {
  const lite = await PGlite.create(
    withVector ? { extensions: { vector: (await import('@electric-sql/pglite-pgvector')).vector } } : {},
  );
  const server = await servePglite(lite);
  const url = `postgres://postgres:test@127.0.0.1:${server.port}/postgres`;
  const admin = quiet(new pg.Pool({ connectionString: url, max: 1 }));
  return {
    url,
    lite: true,
    sql: async (text, params) => (await admin.query(text, params)).rows,
    reset: () => resetSchema(admin),
    async dropConnections() {
      server.dropConnections();
    },
    async stop() {
      await admin.end();
      await server.stop();
      await lite.close();
    },
  };
}

async function onServer(serverUrl: string): Promise<TestDatabase> {
  const name = `agent_test_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const root = quiet(new pg.Pool({ connectionString: serverUrl, max: 1 }));
  await root.query(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const admin = quiet(new pg.Pool({ connectionString: url.toString(), max: 1 }));
  return {
    url: url.toString(),
    lite: false,
    sql: async (text, params) => (await admin.query(text, params)).rows,
    reset: () => resetSchema(admin),
    async dropConnections() {
      await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      );
    },
    async stop() {
      await admin.end();
      await root.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await root.end();
    },
  };
}

/** A pool whose idle connections may be ended by the server (DROP DATABASE … WITH (FORCE)) unheard. */
function quiet(pool: pg.Pool): pg.Pool {
  pool.on('error', () => {});
  return pool;
}

async function resetSchema(admin: pg.Pool): Promise<void> {
  await admin.query('DROP SCHEMA public CASCADE; CREATE SCHEMA public; GRANT ALL ON SCHEMA public TO public');
}

/** The store on a test database (AGENT_USER set, so rows are recorded for a known person). */
export const openTestStore = (db: TestDatabase, user = 'tester'): Promise<PostgresStore> =>
  openPostgres(db.url, { env: { ...process.env, AGENT_USER: user } });

/**
 * The PostgreSQL entry of test/support/stores.ts's list: one database per test file (started at the first
 * open, dropped after the file). A test's first open empties it; its later opens (another person) share
 * it; close closes them, and so does the end of the test that opened them, passed or failed. A test's
 * first open waits until the stores of the test before are closed, so no statement of theirs can land
 * in the emptied database after it.
 */
export function postgresStoreUnderTest(database: { vector?: boolean } = {}): {
  name: string;
  open(options?: { user?: string }): Promise<Store>;
  close(): Promise<void>;
} {
  let db: TestDatabase | undefined;
  const opened: Store[] = [];
  let closing: Promise<unknown> = Promise.resolve();
  const close = (): Promise<void> => {
    const done = Promise.all(opened.splice(0).map((store) => store.close())).then(() => {});
    closing = Promise.all([closing, done.catch(() => {})]);
    return done;
  };
  // The file's database goes with the file (on a real server it would stay behind, one per file run).
  afterAll(async () => {
    for (const store of opened.splice(0)) await store.close().catch(() => {});
    await db?.stop();
  });
  return {
    name: 'postgres',
    async open(options = {}) {
      if (opened.length === 0) {
        await closing;
        onTestFinished(close);
      }
      db ??= await startTestDatabase(database);
      if (opened.length === 0) await db.reset();
      const store = await openTestStore(db, options.user);
      opened.push(store);
      return store;
    },
    close,
  };
}
