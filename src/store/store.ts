// The one store interface: everything agent keeps (the ledger, notes, chat sessions, research runs and
// their progress, the caches, the document index) behind asynchronous methods, so the rest of the code
// does not know whether a local SQLite file (store/sqlite/) or a team's PostgreSQL server
// (store/postgres/) holds it. Implementations throw StoreError (store/errors.ts) for what the user must
// act on (full disk, read-only file, damage, an unreachable server) and otherwise as their driver does.

import type { Price } from '../providers/prices.js';
import type {
  CachedPageRow,
  CacheStats,
  Claim,
  CostReport,
  Exchange,
  ExtractionKey,
  GroupBy,
  LedgerEntry,
  NewRun,
  Note,
  Removed,
  RunProgress,
  RunSummary,
  SavedRun,
  SessionSummary,
  StartedRun,
  StoredMessage,
} from './types.js';

export type * from './types.js';

export interface LedgerStore {
  /** One row per model call, priced now (the price is kept on the row); the cost, null when unpriced. */
  record(entry: LedgerEntry, userPrices?: Record<string, Price>): Promise<number | null>;
  report(options: { by: GroupBy; since?: number }): Promise<CostReport>;
  runTotals(runId: string): Promise<CostReport['totals']>;
  /** Dollars spent by these ledger runs since a moment (unpriced calls count as nothing). */
  spentSince(runIds: string[], since: number): Promise<number>;
}

export interface NotesStore {
  add(note: { content: string; title?: string; tags?: string[] }): Promise<Note>;
  /** Full-text search when `query` is given, else the newest first. */
  list(query?: string, limit?: number): Promise<Note[]>;
  delete(id: number): Promise<boolean>;
}

/**
 * Chat sessions are their owner's: without `all`, only this store's `user`'s are seen (and those kept
 * before people were recorded, which have no owner); `delete` removes only those too.
 */
export interface SessionsStore {
  /** Appends one completed exchange in one transaction, creating the session when `sessionId` is undefined. */
  saveExchange(sessionId: number | undefined, runId: string, exchange: Exchange): Promise<number>;
  get(id: number, options?: { all?: boolean }): Promise<SessionSummary | undefined>;
  latest(options?: { all?: boolean }): Promise<SessionSummary | undefined>;
  list(options?: { limit?: number; all?: boolean }): Promise<SessionSummary[]>;
  messages(id: number): Promise<StoredMessage[]>;
  delete(id: number): Promise<boolean>;
}

export interface RunsStore {
  /** A finished run and its source texts, all or nothing; its id. */
  save(run: NewRun): Promise<number>;
  list(options?: { query?: string; limit?: number; user?: string }): Promise<RunSummary[]>;
  ofQuestion(question: string, mode: string): Promise<SavedRun[]>;
  get(id: number): Promise<SavedRun | undefined>;
  delete(id: number): Promise<boolean>;
  /** A saved run's source texts by number; empty for a run saved before texts were kept. */
  texts(runId: number): Promise<Map<number, string>>;
}

/** Unfinished research runs: each write its own short transaction, committed the moment a step is done. */
export interface ProgressStore {
  start(run: StartedRun): Promise<number>;
  recordPlan(id: number, round: number, plan: object): Promise<void>;
  recordSearch(id: number, query: string, results: unknown[]): Promise<void>;
  recordSource(id: number, key: string, source: object, text: string): Promise<void>;
  recordFacts(id: number, key: string, facts: string): Promise<void>;
  /** Heartbeat; false when another holder has taken the run over. */
  renew(id: number, holder: string): Promise<boolean>;
  release(id: number, holder: string): Promise<void>;
  /** Check and take in one transaction, so two processes cannot both continue one run. */
  claim(id: number, holder: string): Promise<Claim>;
  load(id: number): Promise<RunProgress | undefined>;
  drop(id: number): Promise<void>;
}

export interface CacheStore {
  /** False on a database opened read-only before the caches existed. */
  available(): Promise<boolean>;
  getPage(url: string): Promise<CachedPageRow | undefined>;
  putPage(page: CachedPageRow): Promise<void>;
  deletePage(url: string): Promise<void>;
  /** A 304 confirmed the page: fetched now, under the policy the 304 updated. */
  touchPage(
    url: string,
    update: Pick<CachedPageRow, 'fetchedAt' | 'etag' | 'lastModified' | 'policy'>,
  ): Promise<void>;
  getExtraction(key: ExtractionKey): Promise<string | undefined>;
  putExtraction(key: ExtractionKey, facts: string, createdAt: number): Promise<void>;
  stats(): Promise<CacheStats>;
  clear(before?: number): Promise<{ pages: Removed; extractions: Removed }>;
}

export interface DocumentInfo {
  slug: string;
  title: string;
  path: string;
}

/** A document as the index knows it, to decide whether its file changed. */
export interface IndexedDocument {
  id: number;
  slug: string;
  path: string;
  mtimeMs: number;
  size: number;
}

/** One file read, split and compressed outside any transaction (see research/documents/prepare.ts). */
export interface DocumentWrite {
  slug: string;
  path: string;
  title: string;
  mtimeMs: number;
  size: number;
  /** The text's length in characters. */
  chars: number;
  /** The text as blocks starting at passage starts: raw deflate of the UTF-8, or the text when short. */
  blocks: { start: number; data: Buffer | string }[];
  /**
   * Passages as [heading path, start, end, hash] and their texts as [text, heading path], in order. The
   * hash (hex) is of the text a passage is embedded as: vectors are kept by it (see VectorStore).
   */
  spans: [string, number, number, string][];
  texts: [string, string][];
}

export interface SearchHit extends DocumentInfo {
  score: number;
}

export interface PassageHit extends DocumentInfo {
  ordinal: number;
  headingPath: string;
  text: string;
  score: number;
}

/** A passage found, as a span of its document's text: the text read only when needed. */
export type PassageSpanHit = Omit<PassageHit, 'text'> & { documentId: number; start: number; end: number };

export interface PassageSpan {
  ordinal: number;
  headingPath: string;
  /** [start, end) in the document's text. */
  start: number;
  end: number;
}

/** The document index of content folders (`root` is the folder's absolute path). */
export interface IndexStore {
  /** When `root` was last walked (epoch ms) and what was skipped then. */
  walked(root: string): Promise<{ walkedAt: number; skipped: unknown[] } | undefined>;
  setWalked(root: string, walkedAt: number, skipped: unknown[]): Promise<void>;
  /** Forgets the stored size of every document when the index was written by another extractor. */
  forgetOlderReads(extractorVersion: number): Promise<void>;
  documents(root: string): Promise<IndexedDocument[]>;
  count(root: string): Promise<number>;
  /**
   * One transaction: removes `gone` (document ids) and writes each document with its blocks and
   * passages, skipping one already written with the same path, modification time and size.
   */
  write(root: string, documents: DocumentWrite[], gone: number[]): Promise<void>;
  /**
   * Calls of write() made through this object: a change to the index in this process that no walk
   * marks (a document re-read during a run), for what is kept in the process about the index's state.
   */
  readonly writes: number;
  /** Takes the folder's indexing lease when it is free or its holder is gone; false when held. */
  takeLease(root: string, holder: string, now: number, staleMs: number): Promise<boolean>;
  renewLease(root: string, holder: string, now: number): Promise<void>;
  releaseLease(root: string, holder: string): Promise<void>;
  /** Clears an index found damaged, when only it is; false when that cannot be done. */
  repair(): Promise<boolean>;

  list(root: string): Promise<DocumentInfo[]>;
  find(root: string, slug: string): Promise<(DocumentInfo & { id: number; length: number }) | undefined>;
  /** The whole text of a document ('' when none is stored). */
  text(documentId: number): Promise<string>;
  /** Reads spans of stored texts, each block read and inflated once while among the last a reader read. */
  spanReader(): (documentId: number, start: number, end: number) => Promise<string>;
  /** Documents by full-text rank (a title match weighs five times its best passage), best first. */
  searchDocuments(root: string, terms: string[], limit: number): Promise<SearchHit[]>;
  /** Passages of the folder by full-text rank, best first (a heading word weighs twice a text word). */
  searchPassages(root: string, terms: string[], limit: number): Promise<PassageHit[]>;
  /** The same passages as spans, their texts left to read (spanReader) for those that are needed. */
  searchPassageSpans(root: string, terms: string[], limit: number): Promise<PassageSpanHit[]>;
  /** Each query's passage scores in one document, scaled so its best is 1: [ordinal, score] per query. */
  rankPassages(documentId: number, queries: string[][]): Promise<Map<number, number>[]>;
  passageSpans(documentId: number): Promise<PassageSpan[]>;
}

/** A passage the vector search found: where it is and how near (cosine similarity, -1 to 1). */
export interface VectorHit extends DocumentInfo {
  documentId: number;
  ordinal: number;
  headingPath: string;
  start: number;
  end: number;
  similarity: number;
}

/** A passage that has no vector yet for a model: its text is read from the index by span. */
export interface UnembeddedPassage {
  /** The passage's id, where the next batch starts after. */
  id: number;
  hash: string;
  documentId: number;
  headingPath: string;
  start: number;
  end: number;
}

declare const prepared: unique symbol;
/** A vector in the form one store keeps it (VectorStore.prepare), opaque to everything else. */
export type PreparedVector = { readonly [prepared]: true };

/**
 * Passage vectors, kept by (model, text hash): a changed passage gets a new hash and is embedded again,
 * an unchanged one never is, and vectors of a model not used now stay for when it is used again. `model`
 * names the vectors' space, dimensions included (`openai:text-embedding-3-small@512`), so that vectors
 * of two models or two sizes are never compared.
 */
export interface VectorStore {
  /** Undefined when vectors can be kept and searched here; otherwise why not, in one line. */
  unavailable(): Promise<string | undefined>;
  /** How many distinct passage texts of the folder have no vector of `model`. */
  countMissing(root: string, model: string): Promise<number>;
  /**
   * Up to `limit` passages of the folder without a vector of `model`, by id from after `after` (so that a
   * folder is walked once, batch by batch). Two passages of one text both come: embed it once.
   */
  missing(root: string, model: string, limit: number, after?: number): Promise<UnembeddedPassage[]>;
  /**
   * A vector as the model gave it, in the form this store keeps it (made unit length, compact): computed
   * the moment it comes back, while it is in the processor's cache, and the model's form let go.
   */
  prepare(vector: ArrayLike<number>): PreparedVector;
  /** Keeps prepared vectors under `model`; a hash already kept is left as it is. */
  put(model: string, rows: { hash: string; vector: PreparedVector }[]): Promise<void>;
  /** The folder's passages nearest to `query` by cosine, best first; only one document's if given. */
  nearest(
    root: string,
    model: string,
    query: ArrayLike<number>,
    limit: number,
    documentId?: number,
  ): Promise<VectorHit[]>;
  /** Forgets vectors whose text no passage has any more; how many. */
  prune(): Promise<number>;
}

export interface Store {
  readonly kind: 'sqlite' | 'postgres';
  /** What to show the user: the file's path, or the server's URL without its password. */
  readonly location: string;
  /** Nothing can be written (a read-only file or mount); everything that only reads still works. */
  readonly readOnly: boolean;
  /** The person this process records rows for: AGENT_USER, else the operating-system user name. */
  readonly user: string;
  /**
   * SQLite: the file another connection of this process (a worker thread's) may open to write beside
   * this one; undefined for a server, memory, or a file this connection must hold alone.
   */
  readonly sharedFile?: string;
  readonly ledger: LedgerStore;
  readonly notes: NotesStore;
  readonly sessions: SessionsStore;
  readonly runs: RunsStore;
  readonly progress: ProgressStore;
  readonly cache: CacheStore;
  readonly index: IndexStore;
  /** Passage vectors for hybrid retrieval (sqlite-vec, pgvector). */
  readonly vectors: VectorStore;
  /** Which database, its schema version and how many rows of each kind (`agent db status`). */
  status(): Promise<StoreStatus>;
  /**
   * Applies the migration steps not applied yet (a store opened with `migrate: false` has them pending)
   * and returns their names, in order; [] when the schema is up to date.
   */
  migrate(): Promise<string[]>;
  /** One line when the server does not keep this person's chats private (PostgreSQL only). */
  privacyWarning?(): Promise<string | undefined>;
  close(): Promise<void>;
}

export interface StoreStatus {
  kind: 'sqlite' | 'postgres';
  location: string;
  /** The number of the newest migration step applied. */
  schemaVersion: number;
  /** The names of the steps this version of agent has that the database has not applied yet. */
  pending: string[];
  counts: Record<'reports' | 'notes' | 'sessions' | 'ledger' | 'documents', number>;
  /** What the user should know about the database's security, one line each (PostgreSQL). */
  warnings?: string[];
}
