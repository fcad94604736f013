import { inflateRawSync } from 'node:zlib';
import { holderGone } from '../holder.js';
import { KEPT_BLOCKS, KEPT_LISTS, recent } from '../recent.js';
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
import { passageHit } from '../texts.js';
import { ftsQuery } from './fts.js';
import { readIndex, repairIndex } from './health.js';
import { type Db, writeError } from './open.js';

// The document index in SQLite: FTS5 (BM25) over whole documents and their passages, the texts as
// compressed blocks (see research/documents/stored-text.ts). The walking, reading and ranking logic is
// in research/documents/; this is only its SQL.

// A word in a passage's heading path counts twice a word in its text: "Hotels > London" is what it is about.
const PASSAGE_BM25 = 'bm25(passages_fts, 1.0, 2.0)'; // columns: text, heading_path

const EXTRACTOR_KEY = 'extractor_version';

const inflate = (data: Buffer | string): string =>
  typeof data === 'string' ? data : inflateRawSync(data).toString('utf8');

export class SqliteIndex implements IndexStore {
  writes = 0;

  constructor(private readonly db: Db) {}

  private read<T>(work: () => T): Promise<T> {
    return Promise.resolve(readIndex(this.db, work));
  }

  private writeNow<T>(work: () => T): Promise<T> {
    try {
      return Promise.resolve(this.db.transaction(work).immediate());
    } catch (error) {
      throw writeError(this.db, error);
    }
  }

  async walked(root: string) {
    const row = this.db.prepare('SELECT walked_at, skipped FROM indexed_roots WHERE root = ?').get(root) as
      | { walked_at: number; skipped: string }
      | undefined;
    return row && { walkedAt: row.walked_at, skipped: JSON.parse(row.skipped) as unknown[] };
  }

  async setWalked(root: string, walkedAt: number, skipped: unknown[]) {
    await this.writeNow(() =>
      this.db
        .prepare(
          `INSERT INTO indexed_roots (root, walked_at, skipped) VALUES (?, ?, ?)
           ON CONFLICT (root) DO UPDATE SET walked_at = excluded.walked_at, skipped = excluded.skipped`,
        )
        .run(root, walkedAt, JSON.stringify(skipped)),
    );
  }

  async forgetOlderReads(extractorVersion: number) {
    const db = this.db;
    const stored = db.prepare('SELECT value FROM index_meta WHERE key = ?').pluck().get(EXTRACTOR_KEY);
    if (stored === String(extractorVersion)) return;
    await this.writeNow(() => {
      db.prepare('UPDATE documents SET size = -1').run();
      db.prepare('INSERT OR REPLACE INTO index_meta (key, value) VALUES (?, ?)').run(
        EXTRACTOR_KEY,
        String(extractorVersion),
      );
    });
  }

  async documents(root: string): Promise<IndexedDocument[]> {
    return this.db
      .prepare('SELECT id, slug, path, mtime_ms AS mtimeMs, size FROM documents WHERE root = ?')
      .all(root) as IndexedDocument[];
  }

  async count(root: string): Promise<number> {
    return this.db.prepare('SELECT count(*) FROM documents WHERE root = ?').pluck().get(root) as number;
  }

  async write(root: string, documents: DocumentWrite[], gone: number[]) {
    this.writes++;
    const db = this.db;
    const current = db.prepare('SELECT path, mtime_ms, size FROM documents WHERE root = ? AND slug = ?');
    const upsert = db.prepare(
      `INSERT INTO documents (root, slug, path, title, mtime_ms, size, length) VALUES (@root, @slug, @path, @title, @mtimeMs, @size, @chars)
       ON CONFLICT (root, slug) DO UPDATE SET path = excluded.path, title = excluded.title,
         mtime_ms = excluded.mtime_ms, size = excluded.size, length = excluded.length
       RETURNING id`,
    );
    const clearPassages = db.prepare('DELETE FROM passage_spans WHERE document_id = ?');
    const clearBlocks = db.prepare('DELETE FROM document_blocks WHERE document_id = ?');
    const insertBlock = db.prepare(
      'INSERT INTO document_blocks (document_id, start_offset, data) VALUES (?, ?, ?)',
    );
    const firstId = db.prepare('SELECT coalesce(max(id), 0) + 1 FROM passage_spans').pluck();
    // One statement per document and table: FTS5 indexes a statement's rows together, several times
    // faster than a row at a time. Ids are given here, so a document's passages have consecutive ids.
    const insertSpans = db.prepare(
      `INSERT INTO passage_spans (id, document_id, ordinal, heading_path, start_offset, end_offset, hash)
       SELECT @first + key, @document, key, value ->> 0, value ->> 1, value ->> 2, unhex(value ->> 3)
       FROM json_each(@spans)`,
    );
    const insertText = db.prepare(
      `INSERT INTO passages_fts (rowid, text, heading_path)
       SELECT @first + key, value ->> 0, value ->> 1 FROM json_each(@texts)`,
    );
    const remove = db.prepare('DELETE FROM documents WHERE id = ?');
    // A document and its passages are written in one transaction, so no reader sees one without the
    // other. A file that another process indexed meanwhile (same path, time and size) is not written twice.
    await this.writeNow(() => {
      for (const id of gone) remove.run(id);
      for (const doc of documents) {
        const now = current.get(root, doc.slug) as
          | { path: string; mtime_ms: number; size: number }
          | undefined;
        if (now && now.mtime_ms === doc.mtimeMs && now.size === doc.size && now.path === doc.path) continue;
        const { id } = upsert.get({ root, ...pick(doc) }) as { id: number };
        clearPassages.run(id);
        clearBlocks.run(id);
        for (const block of doc.blocks) insertBlock.run(id, block.start, block.data);
        const first = firstId.get() as number;
        insertSpans.run({ first, document: id, spans: JSON.stringify(doc.spans) });
        insertText.run({ first, texts: JSON.stringify(doc.texts) });
      }
    });
  }

  async takeLease(root: string, holder: string, now: number, staleMs: number) {
    const db = this.db;
    return this.writeNow(() => {
      const row = db.prepare('SELECT holder, heartbeat FROM index_leases WHERE root = ?').get(root) as
        | { holder: string; heartbeat: number }
        | undefined;
      if (row && !holderGone(row, now, staleMs)) return false;
      db.prepare(
        `INSERT INTO index_leases (root, holder, heartbeat) VALUES (?, ?, ?)
         ON CONFLICT (root) DO UPDATE SET holder = excluded.holder, heartbeat = excluded.heartbeat`,
      ).run(root, holder, now);
      return true;
    });
  }

  async renewLease(root: string, holder: string, now: number) {
    this.db
      .prepare('UPDATE index_leases SET heartbeat = ? WHERE root = ? AND holder = ?')
      .run(now, root, holder);
  }

  async releaseLease(root: string, holder: string) {
    this.db.prepare('DELETE FROM index_leases WHERE root = ? AND holder = ?').run(root, holder);
  }

  async repair() {
    return !this.db.readonly && repairIndex(this.db);
  }

  async list(root: string): Promise<DocumentInfo[]> {
    return this.read(
      () =>
        this.db
          .prepare('SELECT slug, title, path FROM documents WHERE root = ? ORDER BY slug')
          .all(root) as DocumentInfo[],
    );
  }

  async find(root: string, slug: string) {
    return this.read(
      () =>
        this.db
          .prepare('SELECT id, slug, title, path, length FROM documents WHERE root = ? AND slug = ?')
          .get(root, slug) as (DocumentInfo & { id: number; length: number }) | undefined,
    );
  }

  async text(documentId: number) {
    return this.read(() => {
      const blocks = this.db
        .prepare('SELECT data FROM document_blocks WHERE document_id = ? ORDER BY start_offset')
        .pluck()
        .all(documentId) as (Buffer | string)[];
      return blocks.map(inflate).join('');
    });
  }

  spanReader() {
    const read = syncSpanReader(this.db);
    return (documentId: number, start: number, end: number) => this.read(() => read(documentId, start, end));
  }

  async searchDocuments(root: string, terms: string[], limit: number): Promise<SearchHit[]> {
    if (terms.length === 0) return [];
    return this.read(
      () =>
        this.db
          .prepare(
            // CROSS JOIN keeps each full-text index as the outer loop; otherwise SQLite may walk every
            // document of the folder and run the MATCH once per row.
            `WITH hits AS MATERIALIZED (
           SELECT rowid AS id, -${PASSAGE_BM25} AS score FROM passages_fts WHERE passages_fts MATCH @match
         ), body AS (
           SELECT p.document_id AS id, max(h.score) AS score
           FROM hits h CROSS JOIN passage_spans p ON p.id = h.id GROUP BY p.document_id
         ), title AS MATERIALIZED (
           SELECT rowid AS id, -5.0 * bm25(documents_fts) AS score FROM documents_fts WHERE documents_fts MATCH @match
         ), scores AS (
           SELECT id, sum(score) AS score FROM (SELECT * FROM body UNION ALL SELECT * FROM title) GROUP BY id
         )
         SELECT d.slug, d.title, d.path, s.score FROM scores s CROSS JOIN documents d ON d.id = s.id
         WHERE d.root = @root ORDER BY s.score DESC, d.slug LIMIT @limit`,
          )
          .all({ match: ftsQuery(terms, 'OR'), root, limit }) as SearchHit[],
    );
  }

  async searchPassageSpans(root: string, terms: string[], limit: number): Promise<PassageSpanHit[]> {
    if (terms.length === 0) return [];
    return this.read(() => this.spansFound(root, terms, limit));
  }

  async searchPassages(root: string, terms: string[], limit: number): Promise<PassageHit[]> {
    if (terms.length === 0) return [];
    // Spans and texts in one read: a document written meanwhile cannot move the spans under the texts.
    return this.read(() => {
      const span = syncSpanReader(this.db);
      return this.spansFound(root, terms, limit).map((h) =>
        passageHit(h, span(h.documentId, h.start, h.end)),
      );
    });
  }

  /**
   * The full-text index ranks on its own and only the best rows are joined: joining every match first
   * costs most of the time.
   */
  private spansFound(root: string, terms: string[], limit: number): PassageSpanHit[] {
    const db = this.db;
    // With other folders in the same database, the best matches may belong to them: filter while ranking.
    const roots = db
      .prepare('SELECT (SELECT min(root) FROM documents) AS lo, (SELECT max(root) FROM documents) AS hi')
      .get() as { lo: string | null; hi: string | null };
    const onlyRoot = roots.lo === root && roots.hi === root;
    const ranked = onlyRoot
      ? `SELECT rowid AS id, ${PASSAGE_BM25} AS rank FROM passages_fts WHERE passages_fts MATCH @match ORDER BY rank LIMIT @limit`
      : `SELECT passages_fts.rowid AS id, ${PASSAGE_BM25} AS rank
         FROM passages_fts CROSS JOIN passage_spans p ON p.id = passages_fts.rowid JOIN documents d ON d.id = p.document_id
         WHERE passages_fts MATCH @match AND d.root = @root ORDER BY rank LIMIT @limit`;
    return db
      .prepare(
        `WITH best AS (${ranked})
       SELECT d.slug, d.title, d.path, p.document_id AS documentId, p.ordinal, p.heading_path AS headingPath,
         p.start_offset AS start, p.end_offset AS end, -best.rank AS score
       FROM best JOIN passage_spans p ON p.id = best.id JOIN documents d ON d.id = p.document_id
       ORDER BY best.rank`,
      )
      .all({ match: ftsQuery(terms, 'OR'), root, limit }) as PassageSpanHit[];
  }

  async rankPassages(documentId: number, queries: string[][]): Promise<Map<number, number>[]> {
    const db = this.db;
    return this.read(() => {
      const ordinals = new Map(
        (
          db.prepare('SELECT id, ordinal FROM passage_spans WHERE document_id = ?').all(documentId) as {
            id: number;
            ordinal: number;
          }[]
        ).map((r) => [r.id, r.ordinal]),
      );
      if (ordinals.size === 0) return queries.map(() => new Map<number, number>());
      // A document's passages are written by one statement, so their ids form one range, and FTS5
      // searches only that range (a join here would make it search every match in the folder).
      const ids = [...ordinals.keys()];
      const ranked = db.prepare(
        `SELECT rowid AS id, -${PASSAGE_BM25} AS score FROM passages_fts
         WHERE passages_fts MATCH ? AND rowid BETWEEN ? AND ? ORDER BY ${PASSAGE_BM25}`,
      );
      return queries.map((terms) => {
        const scores = new Map<number, number>();
        if (terms.length === 0) return scores;
        const rows = (
          ranked.all(ftsQuery(terms, 'OR'), Math.min(...ids), Math.max(...ids)) as {
            id: number;
            score: number;
          }[]
        ).filter((r) => ordinals.has(r.id));
        const best = rows[0]?.score ?? 0;
        if (best <= 0) return scores;
        for (const { id, score } of rows) scores.set(ordinals.get(id)!, score / best);
        return scores;
      });
    });
  }

  async passageSpans(documentId: number): Promise<PassageSpan[]> {
    return this.read(
      () =>
        this.db
          .prepare(
            'SELECT ordinal, heading_path AS headingPath, start_offset AS start, end_offset AS end FROM passage_spans WHERE document_id = ? ORDER BY ordinal',
          )
          .all(documentId) as PassageSpan[],
    );
  }
}

const pick = ({ slug, path, title, mtimeMs, size, chars }: DocumentWrite) => ({
  slug,
  path,
  title,
  mtimeMs,
  size,
  chars,
});

/**
 * Reads spans of stored texts, inflating only the blocks a span covers, and each block once however many
 * spans fall in it while it is among the last ones read. A reader may walk a whole folder (embedding it),
 * so it keeps a bounded number of blocks and block lists, not every text it has read.
 */
function syncSpanReader(db: Db): (documentId: number, start: number, end: number) => string {
  const blocksOf = db.prepare(
    'SELECT id, start_offset AS start FROM document_blocks WHERE document_id = ? ORDER BY start_offset',
  );
  const dataOf = db.prepare('SELECT data FROM document_blocks WHERE id = ?').pluck();
  const blocks = new Map<number, { id: number; start: number }[]>();
  const inflated = new Map<number, string>();
  return (documentId, start, end) => {
    const list = recent(
      blocks,
      documentId,
      KEPT_LISTS,
      () => blocksOf.all(documentId) as { id: number; start: number }[],
    );
    let text = '';
    for (let i = 0; i < list.length; i++) {
      const block = list[i]!;
      const next = i + 1 < list.length ? list[i + 1]!.start : Number.POSITIVE_INFINITY;
      if (next <= start || block.start >= end) continue;
      const whole = recent(inflated, block.id, KEPT_BLOCKS, () =>
        inflate(dataOf.get(block.id) as Buffer | string),
      );
      text += whole.slice(Math.max(0, start - block.start), end - block.start);
    }
    return text;
  };
}
