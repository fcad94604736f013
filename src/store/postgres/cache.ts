import type { CachedPageRow, CacheStats, CacheStore, ExtractionKey, Removed } from '../store.js';
import { deflateText, inflateText, textHash } from '../texts.js';
import { type Client, type Db, rows } from './db.js';

// The page and extraction caches on PostgreSQL (policy lives in src/cache/). A body is stored once
// whatever URLs share it, and goes, in the same transaction, with the last page that used it.

type CacheTally = CacheStats['pages'];

/**
 * "This row is the connected role's", in a form the caches' keys (owner_role first) can serve.
 * session_user is of type name, whose collation is "C": compared as it is with the text column, the
 * condition is only a filter and every lookup reads the whole table (0.5 ms at 3,000 extractions,
 * growing with the team's cache); in the column's collation it is the key's first column.
 */
export const MINE = 'owner_role = session_user::text COLLATE "default"';

// Row sizes as SQLite's side counts them: text as UTF-8 bytes, plus a fixed overhead per row.
const PAGE_ROW_BYTES =
  'pg_catalog.octet_length(url) + pg_catalog.octet_length(final_url) + pg_catalog.octet_length(policy::text) + pg_catalog.octet_length(title) + 64';
const EXTRACTION_ROW_BYTES =
  'pg_catalog.octet_length(facts) + pg_catalog.octet_length(question) + pg_catalog.octet_length(model) + 80';

async function dropUnusedBodies(c: Client, hashes: string[]): Promise<void> {
  await c.query(
    `DELETE FROM page_bodies b WHERE b.hash = ANY($1)
       AND NOT EXISTS (SELECT 1 FROM page_cache p WHERE p.body_hash = b.hash)`,
    [hashes],
  );
}

async function stats(c: Client | Db): Promise<CacheStats> {
  const read = async (sql: string) =>
    'pool' in c ? (await c.one<CacheTally>(sql))! : (await rows<CacheTally>(c, sql))[0]!;
  const pages = await read(
    `SELECT count(*) AS count, coalesce(sum(${PAGE_ROW_BYTES}), 0)
       + (SELECT coalesce(sum(pg_catalog.octet_length(body)), 0) FROM page_bodies) AS bytes,
       min(fetched_at) AS oldest, max(fetched_at) AS newest FROM page_cache`,
  );
  const extractions = await read(
    `SELECT count(*) AS count, coalesce(sum(${EXTRACTION_ROW_BYTES}), 0) AS bytes,
       min(created_at) AS oldest, max(created_at) AS newest FROM extraction_cache`,
  );
  return { pages, extractions };
}

export class PgCache implements CacheStore {
  constructor(private readonly db: Db) {}

  async available(): Promise<boolean> {
    return true;
  }

  async getPage(url: string): Promise<CachedPageRow | undefined> {
    const row = await this.db.one<Omit<CachedPageRow, 'text'> & { body: Buffer; hash: string }>(
      `SELECT p.url, p.final_url AS "finalUrl", p.fetched_at AS "fetchedAt", p.etag,
         p.last_modified AS "lastModified", p.policy, p.extractor, p.title, p.kind, p.pages, b.body, b.hash
       FROM page_cache p JOIN page_bodies b ON b.hash = p.body_hash
       WHERE p.url = $1 AND p.${MINE}`,
      [url],
    );
    if (!row) return undefined;
    const text = inflateText(row.body);
    // A damaged (or, on a team database, rewritten) body is caught by its hash: a miss, read again.
    if (textHash(text) !== row.hash) return undefined;
    const { body: _body, hash: _hash, ...rest } = row;
    return { ...rest, text };
  }

  async putPage(page: CachedPageRow): Promise<void> {
    const hash = textHash(page.text);
    await this.db.tx(async (c) => {
      const [old] = await rows<{ body_hash: string }>(
        c,
        `SELECT body_hash FROM page_cache WHERE url = $1 AND ${MINE} FOR UPDATE`,
        [page.url],
      );
      // Written again even when the hash is known: a damaged copy is replaced, not kept.
      await c.query(
        `INSERT INTO page_bodies (hash, chars, body) VALUES ($1, $2, $3)
         ON CONFLICT (hash) DO UPDATE SET chars = excluded.chars, body = excluded.body`,
        [hash, page.text.length, deflateText(page.text)],
      );
      await c.query(
        `INSERT INTO page_cache (url, final_url, fetched_at, etag, last_modified, policy, extractor, title,
           kind, pages, body_hash)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
         ON CONFLICT (owner_role, url) DO UPDATE SET final_url = excluded.final_url, fetched_at = excluded.fetched_at,
           etag = excluded.etag, last_modified = excluded.last_modified, policy = excluded.policy,
           extractor = excluded.extractor, title = excluded.title, kind = excluded.kind,
           pages = excluded.pages, body_hash = excluded.body_hash`,
        [
          page.url,
          page.finalUrl,
          page.fetchedAt,
          page.etag,
          page.lastModified,
          JSON.stringify(page.policy),
          page.extractor,
          page.title,
          page.kind,
          page.pages,
          hash,
        ],
      );
      if (old && old.body_hash !== hash) await dropUnusedBodies(c, [old.body_hash]);
    });
  }

  async deletePage(url: string): Promise<void> {
    await this.db.tx(async (c) => {
      const gone = await rows<{ body_hash: string }>(
        c,
        `DELETE FROM page_cache WHERE url = $1 AND ${MINE} RETURNING body_hash`,
        [url],
      );
      await dropUnusedBodies(
        c,
        gone.map((g) => g.body_hash),
      );
    });
  }

  async touchPage(
    url: string,
    update: Pick<CachedPageRow, 'fetchedAt' | 'etag' | 'lastModified' | 'policy'>,
  ): Promise<void> {
    await this.db.query(
      `UPDATE page_cache SET fetched_at = $1, etag = $2, last_modified = $3, policy = $4
       WHERE url = $5 AND ${MINE}`,
      [update.fetchedAt, update.etag, update.lastModified, JSON.stringify(update.policy), url],
    );
  }

  async getExtraction(key: ExtractionKey): Promise<string | undefined> {
    const row = await this.db.one<{ facts: string }>(
      `SELECT facts FROM extraction_cache
       WHERE source_hash = $1 AND question = $2 AND model = $3 AND prompt_version = $4
         AND ${MINE}`,
      [key.sourceHash, key.question, key.model, key.promptVersion],
    );
    return row?.facts;
  }

  async putExtraction(key: ExtractionKey, facts: string, createdAt: number): Promise<void> {
    await this.db.query(
      `INSERT INTO extraction_cache (source_hash, question, model, prompt_version, facts, created_at)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (owner_role, source_hash, question, model, prompt_version)
       DO UPDATE SET facts = excluded.facts, created_at = excluded.created_at`,
      [key.sourceHash, key.question, key.model, key.promptVersion, facts, createdAt],
    );
  }

  stats(): Promise<CacheStats> {
    return stats(this.db);
  }

  async clear(before?: number): Promise<{ pages: Removed; extractions: Removed }> {
    return this.db.tx(async (c) => {
      const was = await stats(c);
      const cutoff = before ?? Number.MAX_SAFE_INTEGER;
      const gone = await rows<{ body_hash: string }>(
        c,
        `DELETE FROM page_cache WHERE fetched_at < $1 AND ${MINE} RETURNING body_hash`,
        [cutoff],
      );
      await dropUnusedBodies(c, [...new Set(gone.map((g) => g.body_hash))]);
      await c.query(`DELETE FROM extraction_cache WHERE created_at < $1 AND ${MINE}`, [cutoff]);
      const now = await stats(c);
      const less = (a: CacheTally, b: CacheTally): Removed => ({
        count: a.count - b.count,
        bytes: a.bytes - b.bytes,
      });
      return { pages: less(was.pages, now.pages), extractions: less(was.extractions, now.extractions) };
    });
  }
}
