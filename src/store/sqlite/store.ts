import { defaultDatabasePath } from '../../paths.js';
import type { Price } from '../../providers/prices.js';
import type {
  CacheStore,
  LedgerStore,
  NotesStore,
  ProgressStore,
  RunsStore,
  SessionsStore,
  Store,
  StoreStatus,
} from '../store.js';
import type {
  CachedPageRow,
  Exchange,
  ExtractionKey,
  GroupBy,
  LedgerEntry,
  NewRun,
  StartedRun,
} from '../types.js';
import { currentUser, refuseOthers } from '../user.js';
import * as cache from './cache.js';
import { SqliteIndex } from './documents.js';
import * as ledger from './ledger.js';
import { migrate, pendingMigrations } from './migrations.js';
import * as notes from './notes.js';
import { type Db, type OpenOptions, openDatabase, pathOf, sharedFile, writeError } from './open.js';
import * as runs from './research-runs.js';
import * as progress from './run-progress.js';
import { runTexts } from './run-texts.js';
import * as sessions from './sessions.js';
import { SqliteVectors } from './vectors.js';

// The SQLite store: the one file's synchronous queries (better-sqlite3) behind the asynchronous Store.
// Each method runs to its end before the promise settles, so a write is committed when it resolves.

/** Opens (creating and migrating as needed) the SQLite file at `path`; see openDatabase. */
export async function openSqlite(
  path: string = defaultDatabasePath(),
  options: OpenOptions = {},
): Promise<SqliteStore> {
  return new SqliteStore(openDatabase(path, options), currentUser(options.env));
}

export class SqliteStore implements Store {
  readonly kind = 'sqlite';
  readonly location: string;
  readonly readOnly: boolean;
  readonly ledger: LedgerStore;
  readonly notes: NotesStore;
  readonly sessions: SessionsStore;
  readonly runs: RunsStore;
  readonly progress: ProgressStore;
  readonly cache: CacheStore;
  readonly index: SqliteIndex;
  readonly vectors: SqliteVectors;

  /** `db` is the open file, for what only SQLite has (`agent db check`, the tests' damage). */
  constructor(
    readonly db: Db,
    readonly user: string,
  ) {
    this.location = pathOf(db);
    this.readOnly = db.readonly;
    this.ledger = ledgerOf(db, user);
    this.notes = {
      add: async (note) => notes.addNote(db, note, user),
      list: async (query, limit) => notes.listNotes(db, query, limit),
      delete: async (id) => {
        refuseOthers('note', id, authorOf(db, 'notes', id), user);
        return notes.deleteNote(db, id);
      },
    };
    const owner = (options?: { all?: boolean }) => (options?.all ? undefined : user);
    this.sessions = {
      saveExchange: async (sessionId: number | undefined, runId: string, exchange: Exchange) =>
        sessions.saveExchange(db, sessionId, runId, exchange, user),
      get: async (id, options) => sessions.getSession(db, id, owner(options)),
      latest: async (options) => sessions.latestSession(db, owner(options)),
      list: async (options) => sessions.listSessions(db, options?.limit, owner(options)),
      messages: async (id) => sessions.loadMessages(db, id),
      delete: async (id) => sessions.deleteSession(db, id, user),
    };
    this.runs = {
      save: async (run: NewRun) => runs.saveRun(db, run, user),
      list: async (options) => runs.listRuns(db, options),
      ofQuestion: async (question, mode) => runs.runsOfQuestion(db, question, mode),
      get: async (id) => runs.getRun(db, id),
      delete: async (id) => {
        refuseOthers('report', id, authorOf(db, 'research_runs', id), user);
        return runs.deleteRun(db, id);
      },
      texts: async (runId) => runTexts(db, runId),
    };
    this.progress = {
      start: async (run: StartedRun) => progress.startRun(db, run, user),
      recordPlan: async (id, round, plan) => progress.recordPlan(db, id, round, plan),
      recordSearch: async (id, query, results) => progress.recordSearch(db, id, query, results),
      recordSource: async (id, key, source, text) => progress.recordSource(db, id, key, source, text),
      recordFacts: async (id, key, facts) => progress.recordFacts(db, id, key, facts),
      renew: async (id, holder) => progress.renewRun(db, id, holder),
      release: async (id, holder) => progress.releaseRun(db, id, holder),
      claim: async (id, holder) => progress.claimRun(db, id, holder),
      load: async (id) => progress.loadProgress(db, id),
      drop: async (id) => {
        try {
          db.transaction(() => progress.dropProgress(db, id)).immediate();
        } catch (error) {
          throw writeError(db, error);
        }
      },
    };
    this.cache = cacheOf(db);
    this.index = new SqliteIndex(db);
    this.vectors = new SqliteVectors(db);
  }

  get sharedFile(): string | undefined {
    return sharedFile(this.db);
  }

  async status(): Promise<StoreStatus> {
    const db = this.db;
    // Opened without migrating (`agent db status`), a new file has none of the tables yet.
    const tables = new Set(
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[],
    );
    const count = (table: string) =>
      tables.has(table) ? (db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number) : 0;
    const applied = tables.has('schema_migrations')
      ? (db.prepare('SELECT name FROM schema_migrations').pluck().all() as string[])
      : [];
    return {
      kind: 'sqlite',
      location: this.location,
      schemaVersion: Math.max(0, ...applied.map((name) => Number.parseInt(name, 10) || 0)),
      pending: pendingMigrations(db).map((step) => step.name),
      counts: {
        reports: count('research_runs'),
        notes: count('notes'),
        sessions: count('chat_sessions'),
        ledger: count('usage_ledger'),
        documents: count('documents'),
      },
    };
  }

  async migrate(): Promise<string[]> {
    try {
      return migrate(this.db);
    } catch (error) {
      throw writeError(this.db, error);
    }
  }

  async close(): Promise<void> {
    this.db.close();
  }
}

function ledgerOf(db: Db, user: string): LedgerStore {
  return {
    record: async (entry: LedgerEntry, userPrices?: Record<string, Price>) =>
      ledger.recordCall(db, entry, userPrices, user),
    report: async (options: { by: GroupBy; since?: number }) => ledger.costReport(db, options),
    runTotals: async (runId) => ledger.runTotals(db, runId),
    spentSince: async (runIds, since) => ledger.spentSince(db, runIds, since),
  };
}

function cacheOf(db: Db): CacheStore {
  return {
    available: async () => cache.hasCacheTables(db),
    getPage: async (url) => cache.getCachedPage(db, url),
    putPage: async (page: CachedPageRow) => cache.putCachedPage(db, page),
    deletePage: async (url) => cache.deleteCachedPage(db, url),
    touchPage: async (url, update) => cache.touchCachedPage(db, url, update),
    getExtraction: async (key: ExtractionKey) => cache.getCachedExtraction(db, key),
    putExtraction: async (key, facts, createdAt) => cache.putCachedExtraction(db, key, facts, createdAt),
    stats: async () => cache.cacheStats(db),
    clear: async (before) => cache.clearCache(db, before),
  };
}

/** Who made a note or a report (null: made before people were recorded, or no such row). */
function authorOf(db: Db, table: 'notes' | 'research_runs', id: number): string | null {
  const found = db.prepare(`SELECT created_by AS author FROM ${table} WHERE id = ?`).get(id) as
    | { author: string | null }
    | undefined;
  return found?.author ?? null;
}
