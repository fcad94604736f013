import { holderGone } from '../holder.js';
import type {
  DocumentInfo,
  DocumentWrite,
  IndexedDocument,
  IndexStore,
  PassageHit,
  PassageSpan,
  PassageSpanHit,
  SearchHit,
} from '../store.js';
import { withTexts } from '../texts.js';
import { type Client, type Db, rows } from './db.js';
import { rankPassages, searchDocuments, searchPassageSpans } from './search.js';
import { inflate, pgSpanReader } from './span-reader.js';

// The document index on PostgreSQL: one row per document, its text as compressed blocks (stored once),
// its passages as spans with a tsvector each. A batch of documents is written in one transaction, so no
// reader sees a document without its passages; the folder's lease row keeps two indexers apart.

const EXTRACTOR_KEY = 'extractor_version';

export class PgIndex implements IndexStore {
  writes = 0;

  constructor(private readonly db: Db) {}

  async walked(root: string): Promise<{ walkedAt: number; skipped: unknown[] } | undefined> {
    const row = await this.db.one<{ walked_at: number; skipped: unknown[] }>(
      'SELECT walked_at, skipped FROM indexed_roots WHERE root = $1',
      [root],
    );
    return row && { walkedAt: row.walked_at, skipped: row.skipped };
  }

  async setWalked(root: string, walkedAt: number, skipped: unknown[]): Promise<void> {
    // The folder's passage total, for keyword search's weights (search.ts), counted once here.
    await this.db.query(
      `INSERT INTO indexed_roots (root, walked_at, skipped, passages)
       VALUES ($1, $2, $3, (SELECT coalesce(sum(passages), 0) FROM documents WHERE root = $1))
       ON CONFLICT (root) DO UPDATE
       SET walked_at = excluded.walked_at, skipped = excluded.skipped, passages = excluded.passages`,
      [root, walkedAt, JSON.stringify(skipped)],
    );
  }

  async forgetOlderReads(extractorVersion: number): Promise<void> {
    const stored = await this.db.one<{ value: string }>('SELECT value FROM index_meta WHERE key = $1', [
      EXTRACTOR_KEY,
    ]);
    if (stored?.value === String(extractorVersion)) return;
    await this.db.tx(async (c) => {
      await c.query('UPDATE documents SET size = -1');
      await c.query(
        `INSERT INTO index_meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
        [EXTRACTOR_KEY, String(extractorVersion)],
      );
    });
  }

  async documents(root: string): Promise<IndexedDocument[]> {
    return this.db.query<IndexedDocument>(
      'SELECT id, slug, path, mtime_ms AS "mtimeMs", size FROM documents WHERE root = $1',
      [root],
    );
  }

  async count(root: string): Promise<number> {
    return (await this.db.one<{ n: number }>('SELECT count(*) AS n FROM documents WHERE root = $1', [root]))!
      .n;
  }

  async write(root: string, documents: DocumentWrite[], gone: number[]): Promise<void> {
    this.writes++;
    await this.db.tx(async (c) => {
      if (gone.length > 0) await c.query('DELETE FROM documents WHERE id = ANY($1)', [gone]);
      for (const doc of documents) await writeDocument(c, root, doc);
    });
  }

  async takeLease(root: string, holder: string, now: number, staleMs: number): Promise<boolean> {
    return this.db.tx(async (c) => {
      const taken = await rows(
        c,
        `INSERT INTO index_leases (root, holder, heartbeat) VALUES ($1, $2, $3)
         ON CONFLICT (root) DO NOTHING RETURNING root`,
        [root, holder, now],
      );
      if (taken.length > 0) return true;
      // Locked while it is checked, so two processes that both find the holder gone cannot both take it.
      const [row] = await rows<{ holder: string; heartbeat: number }>(
        c,
        'SELECT holder, heartbeat FROM index_leases WHERE root = $1 FOR UPDATE',
        [root],
      );
      if (row && row.holder !== holder && !holderGone(row, now, staleMs)) return false;
      await c.query(
        `INSERT INTO index_leases (root, holder, heartbeat) VALUES ($1, $2, $3)
         ON CONFLICT (root) DO UPDATE SET holder = excluded.holder, heartbeat = excluded.heartbeat`,
        [root, holder, now],
      );
      return true;
    });
  }

  async renewLease(root: string, holder: string, now: number): Promise<void> {
    await this.db.query('UPDATE index_leases SET heartbeat = $1 WHERE root = $2 AND holder = $3', [
      now,
      root,
      holder,
    ]);
  }

  async releaseLease(root: string, holder: string): Promise<void> {
    await this.db.query('DELETE FROM index_leases WHERE root = $1 AND holder = $2', [root, holder]);
  }

  /** A server keeps its own data whole: there is no damaged index to clear here. */
  async repair(): Promise<boolean> {
    return false;
  }

  async list(root: string): Promise<DocumentInfo[]> {
    return this.db.query<DocumentInfo>(
      'SELECT slug, title, path FROM documents WHERE root = $1 ORDER BY slug COLLATE "C"',
      [root],
    );
  }

  async find(
    root: string,
    slug: string,
  ): Promise<(DocumentInfo & { id: number; length: number }) | undefined> {
    return this.db.one('SELECT id, slug, title, path, length FROM documents WHERE root = $1 AND slug = $2', [
      root,
      slug,
    ]);
  }

  async text(documentId: number): Promise<string> {
    const blocks = await this.db.query<{ data: Buffer; deflated: boolean }>(
      'SELECT data, deflated FROM document_blocks WHERE document_id = $1 ORDER BY start_offset',
      [documentId],
    );
    return blocks.map((b) => inflate(b.data, b.deflated)).join('');
  }

  spanReader(): (documentId: number, start: number, end: number) => Promise<string> {
    return pgSpanReader(this.db);
  }

  searchDocuments(root: string, terms: string[], limit: number): Promise<SearchHit[]> {
    return searchDocuments(this.db, root, terms, limit);
  }

  searchPassageSpans(root: string, terms: string[], limit: number): Promise<PassageSpanHit[]> {
    return searchPassageSpans(this.db, root, terms, limit);
  }

  async searchPassages(root: string, terms: string[], limit: number): Promise<PassageHit[]> {
    return withTexts(await this.searchPassageSpans(root, terms, limit), this.spanReader());
  }

  rankPassages(documentId: number, queries: string[][]): Promise<Map<number, number>[]> {
    return rankPassages(this.db, documentId, queries);
  }

  async passageSpans(documentId: number): Promise<PassageSpan[]> {
    return this.db.query<PassageSpan>(
      `SELECT ordinal, heading_path AS "headingPath", start_offset AS start, end_offset AS "end"
       FROM passage_spans WHERE document_id = $1 ORDER BY ordinal`,
      [documentId],
    );
  }
}

/** One document with its blocks and passages, unless it is written already (same path, time and size). */
async function writeDocument(c: Client, root: string, doc: DocumentWrite): Promise<void> {
  const [now] = await rows<{ path: string; mtime_ms: number; size: number }>(
    c,
    'SELECT path, mtime_ms, size FROM documents WHERE root = $1 AND slug = $2 FOR UPDATE',
    [root, doc.slug],
  );
  if (now && now.mtime_ms === doc.mtimeMs && now.size === doc.size && now.path === doc.path) return;
  const [row] = await rows<{ id: number }>(
    c,
    `INSERT INTO documents (root, slug, path, title, mtime_ms, size, length, passages)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (root, slug) DO UPDATE SET path = excluded.path, title = excluded.title,
       mtime_ms = excluded.mtime_ms, size = excluded.size, length = excluded.length, passages = excluded.passages
     RETURNING id`,
    [root, doc.slug, doc.path, doc.title, doc.mtimeMs, doc.size, doc.chars, doc.spans.length],
  );
  const id = row!.id;
  await c.query('DELETE FROM passage_spans WHERE document_id = $1', [id]);
  await c.query('DELETE FROM document_blocks WHERE document_id = $1', [id]);
  await c.query(
    `INSERT INTO document_blocks (document_id, start_offset, data, deflated)
     SELECT $1, s, d, z FROM ROWS FROM (pg_catalog.unnest($2::int[]), pg_catalog.unnest($3::bytea[]),
       pg_catalog.unnest($4::boolean[])) AS u (s, d, z)`,
    [
      id,
      doc.blocks.map((b) => b.start),
      doc.blocks.map((b) => (typeof b.data === 'string' ? Buffer.from(b.data, 'utf8') : b.data)),
      doc.blocks.map((b) => typeof b.data !== 'string'),
    ],
  );
  // The tsvector is made here from the passage's text, which is not stored again: heading words weight A.
  await c.query(
    `INSERT INTO passage_spans (document_id, ordinal, heading_path, start_offset, end_offset, tsv, hash)
     SELECT $1, i - 1, h, s, e,
       pg_catalog.setweight(pg_catalog.to_tsvector('english', h), 'A') || pg_catalog.setweight(pg_catalog.to_tsvector('english', t), 'B'),
       pg_catalog.decode(x, 'hex')
     FROM ROWS FROM (pg_catalog.unnest($2::text[]), pg_catalog.unnest($3::int[]), pg_catalog.unnest($4::int[]),
       pg_catalog.unnest($5::text[]), pg_catalog.unnest($6::text[])) WITH ORDINALITY AS u (h, s, e, t, x, i)`,
    [
      id,
      doc.spans.map((s) => s[0]),
      doc.spans.map((s) => s[1]),
      doc.spans.map((s) => s[2]),
      doc.texts.map((t) => t[0]),
      doc.spans.map((s) => s[3]),
    ],
  );
}
