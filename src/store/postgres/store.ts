import type { Store, StoreStatus } from '../store.js';
import { PgCache } from './cache.js';
import type { Db } from './db.js';
import { PgIndex } from './documents.js';
import { PgLedger } from './ledger.js';
import { migrate, schemaVersion } from './migrations.js';
import { PgNotes } from './notes.js';
import { PgProgress } from './progress.js';
import { PgRuns } from './runs.js';
import { PgSessions } from './sessions.js';

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
    private readonly db: Db,
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
    const counts = await this.db.one<StoreStatus['counts']>(
      `SELECT (SELECT count(*) FROM research_runs WHERE status = 'done') AS reports,
         (SELECT count(*) FROM notes) AS notes, (SELECT count(*) FROM chat_sessions) AS sessions,
         (SELECT count(*) FROM usage_ledger) AS ledger, (SELECT count(*) FROM documents) AS documents`,
    );
    return { kind: 'postgres', location: this.location, schemaVersion: version, counts: counts! };
  }

  close(): Promise<void> {
    return this.db.close();
  }
}
