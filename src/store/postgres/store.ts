import type { Store, StoreStatus } from '../store.js';
import { PgCache } from './cache.js';
import type { Db } from './db.js';
import { PgIndex } from './documents.js';
import { PgLedger } from './ledger.js';
import { migrate, pendingSteps, schemaVersion } from './migrations.js';
import { PgNotes } from './notes.js';
import { PgRuns } from './research-runs.js';
import { PgProgress } from './run-progress.js';
import { type Identity, privacyWarning, schemaWarning } from './security.js';
import { PgSessions } from './sessions.js';
import { PgVectors } from './vectors.js';

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
  readonly vectors: PgVectors;
  readonly readOnly: boolean;

  constructor(
    /** The pool, for `agent db copy` (copy.ts), which writes rows the interface has no method for. */
    readonly db: Db,
    readonly user: string,
    /** The connecting role as the server sees it. */
    readonly identity: Identity,
  ) {
    this.readOnly = identity.readOnly;
    this.location = db.location;
    this.ledger = new PgLedger(db, user);
    this.notes = new PgNotes(db, user);
    this.sessions = new PgSessions(db, user);
    this.runs = new PgRuns(db, user);
    this.progress = new PgProgress(db, user);
    this.cache = new PgCache(db);
    this.index = new PgIndex(db);
    this.vectors = new PgVectors(db);
  }

  /** Applies the pending schema steps (all in one transaction, under the advisory lock); their names. */
  migrate(): Promise<string[]> {
    // `agent db migrate` applies the team's grants even when no step is pending (roles made later).
    return migrate(this.db, undefined, { grants: !this.readOnly });
  }

  /** One line when chats on this connection are not private (a superuser, BYPASSRLS, a shared role). */
  privacyWarning(): Promise<string | undefined> {
    return privacyWarning(this.db, this.identity, this.user);
  }

  async status(): Promise<StoreStatus> {
    const version = await schemaVersion(this.db);
    const pending = await pendingSteps(this.db);
    // Counted where the table exists: `agent db status` runs on a database not migrated yet too.
    const counts = { reports: 0, notes: 0, sessions: 0, ledger: 0, documents: 0 };
    for (const [key, table] of COUNTED) {
      const found = await this.db.one<{ n: number | null }>(
        `SELECT CASE WHEN pg_catalog.to_regclass($1) IS NULL THEN NULL ELSE 0 END AS n`,
        [table],
      );
      if (found?.n === null) continue;
      counts[key] = (await this.db.one<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))!.n;
    }
    const warnings = [await this.privacyWarning(), await schemaWarning(this.db)].filter(
      (w): w is string => w !== undefined,
    );
    return { kind: 'postgres', location: this.location, schemaVersion: version, counts, pending, warnings };
  }

  close(): Promise<void> {
    return this.db.close();
  }
}
