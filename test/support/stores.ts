import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { onTestFinished } from 'vitest';
import { openDatabase } from '../../src/store/sqlite/open.js';
import { openSqlite, SqliteStore } from '../../src/store/sqlite/store.js';
import type { Store } from '../../src/store/store.js';
import { tempDb } from './cli.js';
import { postgresStoreUnderTest } from './pg.js';

// The stores every store test runs against: SQLite, and PostgreSQL (PGlite over the wire protocol, or the
// server AGENT_TEST_DATABASE_URL names; see pg.ts). A test's first open() gives a fresh, empty, migrated
// database, its later opens the same one as another person; close() closes them and removes what they made,
// and the end of the test that opened them does too, whether it passed or failed.

export interface StoreUnderTest {
  name: string;
  open(options?: { user?: string }): Promise<Store>;
  close(): Promise<void>;
}

export function storesUnderTest(): StoreUnderTest[] {
  return [sqliteUnderTest(), postgresStoreUnderTest()];
}

function sqliteUnderTest(): StoreUnderTest {
  const opened: { store: Store; path: string }[] = [];
  const close = async () => {
    const path = opened[0]?.path;
    for (const { store } of opened.splice(0)) await store.close();
    if (path) rmSync(dirname(path), { recursive: true, force: true });
  };
  return {
    name: 'sqlite',
    async open(options = {}) {
      if (opened.length === 0) onTestFinished(close);
      // One file for every store this test opens, so two people can share it.
      const path = opened[0]?.path ?? tempDb();
      const store = await openSqlite(path, { env: { AGENT_USER: options.user ?? 'tester' } });
      opened.push({ store, path });
      return store;
    },
    close,
  };
}

/** An SQLite store for tests that also look at the file itself (`.db`): in memory unless given a path. */
export const sqliteStore = (path = ':memory:', user = 'tester'): Promise<SqliteStore> =>
  openSqlite(path, { env: { AGENT_USER: user } });

/** The same at once, for test helpers that are not asynchronous (opening an SQLite file is not). */
export const sqliteStoreNow = (path = ':memory:', user = 'tester'): SqliteStore =>
  new SqliteStore(openDatabase(path), user);

/** The SQLite file under a store from storesUnderTest(), for the checks only SQLite has. */
export const sqliteFileOf = (store: Store): SqliteStore['db'] => (store as SqliteStore).db;
