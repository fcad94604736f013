import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { copySqlite, openSource } from '../../../src/store/postgres/copy.js';
import type { PostgresStore } from '../../../src/store/postgres/store.js';
import { tempDb } from '../../support/cli.js';
import { openTestStore, startTestDatabase, type TestDatabase } from '../../support/pg.js';
import { sqliteStore } from '../../support/stores.js';

// `agent db copy` run again, or twice at once: each source row is known by a key recorded in the target,
// so a rerun skips exactly what was copied and rows that differ (another person's note of the same
// millisecond, another cost) are all copied; a second copy at the same time is told one is running.

let db: TestDatabase;
let store: PostgresStore;
beforeAll(async () => {
  db = await startTestDatabase();
});
beforeEach(async () => {
  await store?.close();
  await db.reset();
  store = await openTestStore(db);
});
afterAll(async () => {
  await store?.close();
  await db?.stop();
});

const usage = { input: 10, output: 10, cacheRead: 0, cacheWrite: 0, reasoning: 0 };

/** A SQLite history with rows that share a millisecond but differ, and two rows equal in every column. */
async function history(): Promise<string> {
  const path = tempDb();
  const ann = await sqliteStore(path, 'ann');
  const entry = {
    command: 'chat' as const,
    runId: 'r',
    step: 'chat',
    provider: 'openai',
    model: 'gpt-4o',
    ts: 1000,
  };
  await ann.ledger.record({ ...entry, usage });
  await ann.ledger.record({ ...entry, usage });
  await ann.ledger.record({ ...entry, usage: { ...usage, cacheRead: 5 } });
  await ann.close();
  const bob = await sqliteStore(path, 'bob');
  await bob.ledger.record({ ...entry, usage });
  await bob.close();
  const s = openSource(path);
  // Two notes of the same millisecond and text, by two people.
  s.close();
  const Database = (await import('better-sqlite3')).default;
  const raw = new Database(path);
  raw
    .prepare("INSERT INTO notes (content, tags, created_at, created_by) VALUES ('same', '[]', 5, 'ann')")
    .run();
  raw
    .prepare("INSERT INTO notes (content, tags, created_at, created_by) VALUES ('same', '[]', 5, 'bob')")
    .run();
  raw.close();
  return path;
}

async function copy(path: string) {
  const source = openSource(path);
  try {
    return await copySqlite(source, path, store.db);
  } finally {
    source.close();
  }
}

describe('db copy by source keys', () => {
  it('copies every distinct row once, and a rerun copies nothing', async () => {
    const path = await history();
    const first = await copy(path);
    expect(first.copied).toMatchObject({ ledger: 4, notes: 2 });
    const again = await copy(path);
    expect(again.copied).toMatchObject({ ledger: 0, notes: 0 });
    expect(again.skipped).toBe(6);
    expect(await db.sql('SELECT count(*)::int AS n FROM usage_ledger')).toEqual([{ n: 4 }]);
    expect(await db.sql("SELECT created_by AS by FROM notes WHERE content = 'same' ORDER BY 1")).toEqual([
      { by: 'ann' },
      { by: 'bob' },
    ]);
  });

  it.skipIf(!process.env.AGENT_TEST_DATABASE_URL)(
    'lets one copy run at a time into a database: the others say another is running',
    async () => {
      const path = await history();
      const others = await Promise.all([openTestStore(db), openTestStore(db)]);
      try {
        const runs = await Promise.allSettled(
          [store, ...others].map(async (s) => {
            const source = openSource(path);
            try {
              return await copySqlite(source, path, s.db);
            } finally {
              source.close();
            }
          }),
        );
        const refused = runs.filter((r) => r.status === 'rejected');
        for (const r of refused)
          expect(String((r as PromiseRejectedResult).reason.message)).toMatch(
            /^Another copy is running into/,
          );
        expect(refused.length).toBeLessThan(3);
        expect(await db.sql('SELECT count(*)::int AS n FROM usage_ledger')).toEqual([{ n: 4 }]);
        expect(await db.sql('SELECT count(*)::int AS n FROM notes')).toEqual([{ n: 2 }]);
      } finally {
        for (const s of others) await s.close();
      }
    },
  );
});
