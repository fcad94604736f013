import { deflateText, inflateText, textHash } from '../texts.js';
import type { CachedPageRow, CacheStats, CacheTally, ExtractionKey, Removed } from '../types.js';
import type { Db } from './open.js';

// The SQL of the page and extraction caches (db/migrations/sqlite/012_caches.sql). Policy — what may be stored,
// when a page is fresh — lives in src/cache/; these functions only read and write rows, and throw as
// SQLite does: the callers decide that a failed cache write is skipped and a bad row is a miss.

/** The cached page for a URL, or undefined; a row that cannot be decoded throws. */
export function getCachedPage(db: Db, url: string): CachedPageRow | undefined {
  const row = db
    .prepare(
      `SELECT p.url, p.final_url AS finalUrl, p.fetched_at AS fetchedAt, p.etag,
         p.last_modified AS lastModified, p.policy, p.extractor, p.title,
         p.kind, p.pages, b.body, b.hash
       FROM page_cache p JOIN page_bodies b ON b.hash = p.body_hash WHERE p.url = ?`,
    )
    .get(url) as
    | (Omit<CachedPageRow, 'policy' | 'text'> & { policy: string; body: Buffer; hash: string })
    | undefined;
  if (!row) return undefined;
  const text = inflateText(row.body);
  // A damaged body that still inflates is caught by its hash.
  if (textHash(text) !== row.hash) throw new Error(`the cached text of ${url} does not match its hash`);
  const { body: _body, hash: _hash, ...rest } = row;
  return { ...rest, policy: JSON.parse(row.policy), text };
}

/** Stores (or replaces) a URL's page; its text is stored once, whatever other URLs share it. */
export function putCachedPage(db: Db, page: CachedPageRow): void {
  const hash = textHash(page.text);
  db.transaction(() => {
    // Written again even when the hash is known: a damaged copy is replaced, not kept.
    db.prepare(
      `INSERT INTO page_bodies (hash, chars, body) VALUES (?, ?, ?)
       ON CONFLICT (hash) DO UPDATE SET chars = excluded.chars, body = excluded.body`,
    ).run(hash, page.text.length, deflateText(page.text));
    db.prepare(
      `INSERT INTO page_cache (url, final_url, fetched_at, etag, last_modified, policy, extractor, title,
         kind, pages, body_hash)
       VALUES (@url, @finalUrl, @fetchedAt, @etag, @lastModified, @policy, @extractor, @title, @kind, @pages,
         @hash)
       ON CONFLICT (url) DO UPDATE SET final_url = excluded.final_url, fetched_at = excluded.fetched_at,
         etag = excluded.etag, last_modified = excluded.last_modified, policy = excluded.policy, extractor = excluded.extractor, title = excluded.title,
         kind = excluded.kind, pages = excluded.pages, body_hash = excluded.body_hash`,
    ).run({ ...page, policy: JSON.stringify(page.policy), hash });
  })();
}

/** The server no longer lets the page be stored (or sent less than all of it): the old copy goes. */
export function deleteCachedPage(db: Db, url: string): void {
  db.prepare('DELETE FROM page_cache WHERE url = ?').run(url);
}

/** A 304 confirmed the cached page: it counts as fetched now, under the policy the 304 updated. */
export function touchCachedPage(
  db: Db,
  url: string,
  update: Pick<CachedPageRow, 'fetchedAt' | 'etag' | 'lastModified' | 'policy'>,
): void {
  db.prepare(
    `UPDATE page_cache SET fetched_at = @fetchedAt, etag = @etag, last_modified = @lastModified,
       policy = @policy WHERE url = @url`,
  ).run({ ...update, policy: JSON.stringify(update.policy), url });
}

export function getCachedExtraction(db: Db, key: ExtractionKey): string | undefined {
  return db
    .prepare(
      `SELECT facts FROM extraction_cache
       WHERE source_hash = @sourceHash AND question = @question AND model = @model AND prompt_version = @promptVersion`,
    )
    .pluck()
    .get(key) as string | undefined;
}

export function putCachedExtraction(db: Db, key: ExtractionKey, facts: string, createdAt: number): void {
  db.prepare(
    `INSERT OR REPLACE INTO extraction_cache (source_hash, question, model, prompt_version, facts, created_at)
     VALUES (@sourceHash, @question, @model, @promptVersion, @facts, @createdAt)`,
  ).run({ ...key, facts, createdAt });
}

// Row sizes as SQLite stores the values: text as UTF-8 bytes.
const PAGE_ROW_BYTES =
  'length(CAST(url AS BLOB)) + length(CAST(final_url AS BLOB)) + length(CAST(policy AS BLOB)) + length(CAST(title AS BLOB)) + 64';
const EXTRACTION_ROW_BYTES =
  'length(CAST(facts AS BLOB)) + length(CAST(question AS BLOB)) + length(CAST(model AS BLOB)) + 80';

export function cacheStats(db: Db): CacheStats {
  const pages = db
    .prepare(
      `SELECT count(*) AS count, coalesce(sum(${PAGE_ROW_BYTES}), 0)
         + (SELECT coalesce(sum(length(body)), 0) FROM page_bodies) AS bytes,
         min(fetched_at) AS oldest, max(fetched_at) AS newest FROM page_cache`,
    )
    .get() as CacheTally;
  const extractions = db
    .prepare(
      `SELECT count(*) AS count, coalesce(sum(${EXTRACTION_ROW_BYTES}), 0) AS bytes,
         min(created_at) AS oldest, max(created_at) AS newest FROM extraction_cache`,
    )
    .get() as CacheTally;
  return { pages, extractions };
}

/** Removes every entry, or those stored before `before` (epoch ms); returns what was removed. */
export function clearCache(db: Db, before?: number): { pages: Removed; extractions: Removed } {
  return db.transaction(() => {
    const was = cacheStats(db);
    const cutoff = before ?? Number.MAX_SAFE_INTEGER;
    db.prepare('DELETE FROM page_cache WHERE fetched_at < ?').run(cutoff);
    db.prepare('DELETE FROM extraction_cache WHERE created_at < ?').run(cutoff);
    const now = cacheStats(db);
    const gone = (a: CacheTally, b: CacheTally): Removed => ({
      count: a.count - b.count,
      bytes: a.bytes - b.bytes,
    });
    return { pages: gone(was.pages, now.pages), extractions: gone(was.extractions, now.extractions) };
  })();
}

/** Whether this database has the caches (one opened read-only before migration 012 has not). */
export function hasCacheTables(db: Db): boolean {
  const n = db
    .prepare(
      "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('page_cache', 'page_bodies', 'extraction_cache')",
    )
    .pluck()
    .get() as number;
  return n === 3;
}
