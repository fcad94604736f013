import { ConfigError } from '../errors.js';
import { type Boss, mayInstall, startBoss } from '../queue/boss.js';
import { databaseTarget, isPostgresUrl } from '../store/open.js';
import type { PostgresStore } from '../store/postgres/store.js';
import { openDb } from './open-db.js';

// The job queue for `research --batch --queue`, `worker` and `batch`: the team's PostgreSQL database,
// or one line saying that one is needed (exit 2) before any SQLite file is opened.

export async function openQueue(
  dbFlag: string | undefined,
  what: string,
): Promise<{ store: PostgresStore; boss: Boss; close(): Promise<void> }> {
  if (!isPostgresUrl(databaseTarget(dbFlag)))
    throw new ConfigError(
      `${what} needs a team PostgreSQL database, where the job queue lives: set AGENT_DATABASE_URL (or --db) to its postgres:// URL.`,
    );
  const store = (await openDb(dbFlag)) as PostgresStore;
  try {
    // The admin (or a quick start's superuser) sets the queue up on first use; a member cannot.
    const boss = await startBoss(store.db, { install: await mayInstall(store.db) });
    return {
      store,
      boss,
      async close() {
        await boss.stop({ graceful: false, close: false }).catch(() => {});
        await store.close();
      },
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}
