import { ftsQuery } from '../../store/fts.js';
import { readIndex } from '../../store/health.js';
import type { Db } from '../../store/open.js';
import { readText, spanReader } from './stored-text.js';

// Full-text search (SQLite FTS5, BM25) over whole documents and over their passages.

export interface DocumentInfo {
  slug: string;
  title: string;
  path: string;
}

export interface Document extends DocumentInfo {
  body: string;
}

export function listDocuments(db: Db, root: string): DocumentInfo[] {
  return db
    .prepare('SELECT slug, title, path FROM documents WHERE root = ? ORDER BY slug')
    .all(root) as DocumentInfo[];
}

export function getDocument(db: Db, root: string, slug: string): Document | undefined {
  const doc = db
    .prepare('SELECT id, slug, title, path FROM documents WHERE root = ? AND slug = ?')
    .get(root, slug) as (DocumentInfo & { id: number }) | undefined;
  if (!doc) return undefined;
  const { id, ...info } = doc;
  return { ...info, body: readIndex(db, () => readText(db, id)) };
}

const STOPWORDS = new Set(
  'a an and are as at be but by can could do does for from has have how i if in is it its may me my of on or our should so than that the their them then there these this to was we what when where which who why will with without would you your'.split(
    ' ',
  ),
);

/** The words of a question worth searching for; "without" and "not" stay out, they match everything. */
export function queryTerms(text: string): string[] {
  const words = text.toLowerCase().match(/[\p{L}\p{N}$]+/gu) ?? [];
  return [...new Set(words.map((w) => w.replace(/^\$/, '')).filter((w) => w && !STOPWORDS.has(w)))];
}

// A word in a passage's heading path counts twice a word in its text: "Hotels > London" is what it is about.
const PASSAGE_BM25 = 'bm25(passages_fts, 1.0, 2.0)'; // columns: text, heading_path

export interface SearchHit extends DocumentInfo {
  score: number;
}

/**
 * Documents by BM25: a title match counts five times, and the body's score is that of its best passage
 * (the text is indexed once, as passages). Best first.
 */
export function searchDocuments(db: Db, root: string, query: string, limit = 5): SearchHit[] {
  const terms = queryTerms(query);
  if (terms.length === 0) return [];
  return readIndex(
    db,
    () =>
      db
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

export interface PassageHit extends DocumentInfo {
  ordinal: number;
  headingPath: string;
  text: string;
  score: number;
}

/**
 * BM25 over the passages of every document in the folder, best first. The full-text index ranks on its
 * own and only the best rows are joined: joining every match first costs most of the time.
 */
export function searchPassages(db: Db, root: string, query: string, limit = 12): PassageHit[] {
  const terms = queryTerms(query);
  if (terms.length === 0) return [];
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
  return readIndex(db, () => {
    const rows = db
      .prepare(
        `WITH best AS (${ranked})
       SELECT d.slug, d.title, d.path, p.document_id AS documentId, p.ordinal, p.heading_path AS headingPath,
         p.start_offset AS start, p.end_offset AS end, -best.rank AS score
       FROM best JOIN passage_spans p ON p.id = best.id JOIN documents d ON d.id = p.document_id
       ORDER BY best.rank`,
      )
      .all({ match: ftsQuery(terms, 'OR'), root, limit }) as (Omit<PassageHit, 'text'> & {
      documentId: number;
      start: number;
      end: number;
    })[];
    const span = spanReader(db);
    return rows.map(({ documentId, start, end, ...hit }) => ({
      ...hit,
      text: span(documentId, start, end),
    }));
  });
}

/**
 * The ordinals of one document's passages that match any of the queries, best first. Each query's BM25
 * scores are scaled so that its best passage scores 1, then added up: each query's best passages come
 * early, and a passage that several queries find comes before one that only one of them finds.
 */
export function rankPassages(db: Db, documentId: number, queries: string[]): number[] {
  return readIndex(db, () => rankPassagesOf(db, documentId, queries));
}

function rankPassagesOf(db: Db, documentId: number, queries: string[]): number[] {
  const ordinals = new Map(
    (
      db.prepare('SELECT id, ordinal FROM passage_spans WHERE document_id = ?').all(documentId) as {
        id: number;
        ordinal: number;
      }[]
    ).map((r) => [r.id, r.ordinal]),
  );
  if (ordinals.size === 0) return [];
  // A document's passages are written by one statement, so their ids form one range, and FTS5 searches
  // only that range (a join here would make it search every match in the folder).
  const ids = [...ordinals.keys()];
  const ranked = db.prepare(
    `SELECT rowid AS id, -${PASSAGE_BM25} AS score FROM passages_fts
     WHERE passages_fts MATCH ? AND rowid BETWEEN ? AND ? ORDER BY ${PASSAGE_BM25}`,
  );
  const total = new Map<number, number>();
  for (const query of queries) {
    const terms = queryTerms(query);
    if (terms.length === 0) continue;
    const rows = (
      ranked.all(ftsQuery(terms, 'OR'), Math.min(...ids), Math.max(...ids)) as { id: number; score: number }[]
    ).filter((r) => ordinals.has(r.id));
    const best = rows[0]?.score ?? 0;
    if (best <= 0) continue;
    for (const { id, score } of rows) {
      const ordinal = ordinals.get(id)!;
      total.set(ordinal, (total.get(ordinal) ?? 0) + score / best);
    }
  }
  return [...total.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([ordinal]) => ordinal);
}

export interface PassageSpan {
  ordinal: number;
  headingPath: string;
  /** [start, end) in the document's text. */
  start: number;
  end: number;
}

/** A document's passages, in order, as spans of its text. */
export function passageSpans(db: Db, documentId: number): PassageSpan[] {
  return readIndex(
    db,
    () =>
      db
        .prepare(
          'SELECT ordinal, heading_path AS headingPath, start_offset AS start, end_offset AS end FROM passage_spans WHERE document_id = ? ORDER BY ordinal',
        )
        .all(documentId) as PassageSpan[],
  );
}
