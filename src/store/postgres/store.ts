import type { Store, StoreStatus } from '../store.js';
import { PgCache } from './cache.js';
import type { Db } from './db.js';
import { PgIndex } from './documents.js';
import { PgLedger } from './ledger.js';
import { migrate, pendingSteps, schemaVersion } from './migrations.js';
import { PgNotes } from './notes.js';
import { PgProgress } from './progress.js';
import { PgRuns } from './runs.js';
import { PgSessions } from './sessions.js';

const COUNTED = [
  ['reports', 'research_runs'],
  ['notes', 'notes'],
  ['sessions', 'chat_sessions'],
  ['ledger', 'usage_ledger'],
  ['documents', 'documents'],
] as const;

/** Everything agent keeps, in a team's PostgreSQL database: one capability per object. */
export class PostgresStore implements Store {
  readonly kind = 'postgres' as const;
  readonly location: string;
  readonly ledger: PgLedger;
  readonly notes: PgNotes;
  readonly sessions: PgSessions;
  readonly runs: PgRuns;
  readonly progress: PgProgress;
  readonly cache: PgCache;
  readonly index: PgIndex;

  constructor(
    /** The pool, for `agent db copy` (copy.ts), which writes rows the interface has no method for. */
    readonly db: Db,
    readonly user: string,
    readonly readOnly: boolean,
  ) {
    this.location = db.location;
    this.ledger = new PgLedger(db, user);
    this.notes = new PgNotes(db, user);
    this.sessions = new PgSessions(db, user);
    this.runs = new PgRuns(db, user);
    this.progress = new PgProgress(db, user);
    this.cache = new PgCache(db);
    this.index = new PgIndex(db);
  }

  /** Applies the pending schema steps (all in one transaction, under the advisory lock); their names. */
  migrate(): Promise<string[]> {
    return migrate(this.db);
  }

  async status(): Promise<StoreStatus> {
    const version = await schemaVersion(this.db);
    const pending = await pendingSteps(this.db);
    // Counted where the table exists: `agent db status` runs on a database not migrated yet too.
    const counts = { reports: 0, notes: 0, sessions: 0, ledger: 0, documents: 0 };
    for (const [key, table] of COUNTED) {
      const found = await this.db.one<{ n: number | null }>(
        `SELECT CASE WHEN to_regclass($1) IS NULL THEN NULL ELSE 0 END AS n`,
        [table],
      );
      if (found?.n === null) continue;
      counts[key] = (await this.db.one<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))!.n;
    }
    return { kind: 'postgres', location: this.location, schemaVersion: version, counts, pending };
  }

  close(): Promise<void> {
    return this.db.close();
  }
}
