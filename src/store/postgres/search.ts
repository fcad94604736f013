import type { PassageSpanHit, SearchHit } from '../store.js';
import type { Db } from './db.js';
import { WEIGHTS } from './fts.js';

// Full-text ranking on PostgreSQL, close to SQLite's BM25: each term's ts_rank_cd (cover density, a
// heading word weighing twice a text word, saturated as BM25's term frequency is: rank / (rank + 1)) is
// weighted by the term's BM25 inverse document frequency among the passages searched, and the terms'
// scores are added: any term matches (OR), rare terms count most. Dividing by the passage's length as
// well (normalisation 1 or 2) agreed less often with SQLite's top passages on the sample documents.

/** ts_rank_cd's normalisation: 32, rank / (rank + 1). */
const NORM = 32;

/** A folder's passages ($2 the folder): as counted when it was last indexed, else summed now. */
const FOLDER_PASSAGES = `coalesce(
    (SELECT r.passages FROM indexed_roots r WHERE r.root = $2),
    (SELECT sum(d.passages) FROM documents d WHERE d.root = $2))`;

/** A passage's rank for a term: ts_rank_cd, saturated. */
const RANK = `pg_catalog.ts_rank_cd('${WEIGHTS}', p.tsv, terms.q, ${NORM})`;

/**
 * The passages matching any of $1's terms within $2, a folder (its documents' root) or one document,
 * as `hits` (t, id, r). A folder that holds every document of the database (the smallest and largest
 * root are both $2, two index look-ups) needs no look-up of each hit's document: a third of the
 * keyword search at 100,000 passages.
 */
const hitsIn = (within: 'folder' | 'document') =>
  within === 'document'
    ? `hits AS (
    SELECT terms.t, p.id, ${RANK} AS r FROM terms JOIN passage_spans p ON p.tsv @@ terms.q WHERE p.document_id = $2
  )`
    : `alone AS MATERIALIZED (
    SELECT (SELECT pg_catalog.min(root) FROM documents) = $2 AND (SELECT pg_catalog.max(root) FROM documents) = $2 AS yes
  ), hits AS (
    SELECT terms.t, p.id, ${RANK} AS r FROM terms JOIN passage_spans p ON p.tsv @@ terms.q
    WHERE (SELECT yes FROM alone)
    UNION ALL
    SELECT terms.t, p.id, ${RANK} AS r
    FROM terms JOIN passage_spans p ON p.tsv @@ terms.q JOIN documents d ON d.id = p.document_id
    WHERE NOT (SELECT yes FROM alone) AND d.root = $2
  )`;

/**
 * CTEs over the passages matching any of $1's terms within $2 (a folder or one document) of `total`
 * passages (an SQL expression): `idf` (t, w) the terms' weights, `scores` (id, score) the passages'
 * scores.
 */
const scored = (within: 'folder' | 'document', total: string) => `
  terms AS MATERIALIZED (
    SELECT t, q FROM pg_catalog.unnest($1::text[]) AS t, pg_catalog.websearch_to_tsquery('english', '"' || t || '"') AS q
    WHERE pg_catalog.numnode(q) > 0
  ), n AS MATERIALIZED (
    SELECT coalesce(${total}, 0)::float8 AS n
  ), ${hitsIn(within)}, idf AS (
    SELECT hits.t, pg_catalog.ln(1 + (n.n - count(*) + 0.5) / (count(*) + 0.5)) AS w FROM hits, n GROUP BY hits.t, n.n
  ), scores AS (
    SELECT hits.id, sum(idf.w * hits.r) AS score FROM hits JOIN idf ON idf.t = hits.t GROUP BY hits.id
  )`;

/** Queries' words the way the index stores them (lower case). */
const clean = (terms: string[]): string[] => [...new Set(terms.map((t) => t.toLowerCase()))];

export async function searchPassageSpans(
  db: Db,
  root: string,
  terms: string[],
  limit: number,
): Promise<PassageSpanHit[]> {
  if (terms.length === 0) return [];
  return db.query<PassageSpanHit>(
    `WITH ${scored('folder', FOLDER_PASSAGES)}, best AS (SELECT * FROM scores ORDER BY score DESC, id LIMIT $3)
     SELECT d.slug, d.title, d.path, p.document_id AS "documentId", p.ordinal, p.heading_path AS "headingPath",
       p.start_offset AS start, p.end_offset AS "end", best.score
     FROM best JOIN passage_spans p ON p.id = best.id JOIN documents d ON d.id = p.document_id
     ORDER BY best.score DESC, best.id`,
    [clean(terms), root, limit],
  );
}

/** Documents by their best passage's score plus five times their title's (weighted alike), best first. */
export async function searchDocuments(
  db: Db,
  root: string,
  terms: string[],
  limit: number,
): Promise<SearchHit[]> {
  if (terms.length === 0) return [];
  return db.query<SearchHit>(
    `WITH ${scored('folder', FOLDER_PASSAGES)},
     body AS (
       SELECT p.document_id AS id, max(s.score) AS score FROM scores s JOIN passage_spans p ON p.id = s.id
       GROUP BY p.document_id
     ), title AS (
       SELECT d.id, 5 * sum(coalesce(idf.w, 1) * pg_catalog.ts_rank_cd(d.title_tsv, terms.q, ${NORM})) AS score
       FROM terms JOIN documents d ON d.title_tsv @@ terms.q LEFT JOIN idf ON idf.t = terms.t
       WHERE d.root = $2 GROUP BY d.id
     ), total AS (
       SELECT id, sum(score) AS score FROM (SELECT * FROM body UNION ALL SELECT * FROM title) x GROUP BY id
     )
     SELECT d.slug, d.title, d.path, s.score FROM total s JOIN documents d ON d.id = s.id
     ORDER BY s.score DESC, d.slug COLLATE "C" LIMIT $3`,
    [clean(terms), root, limit],
  );
}

/** Each query's scores of one document's passages, scaled so its best is 1: ordinal → score. */
export async function rankPassages(
  db: Db,
  documentId: number,
  queries: string[][],
): Promise<Map<number, number>[]> {
  const out: Map<number, number>[] = [];
  for (const terms of queries) {
    const scores = new Map<number, number>();
    out.push(scores);
    if (terms.length === 0) continue;
    const found = await db.query<{ ordinal: number; score: number }>(
      `WITH ${scored('document', '(SELECT d.passages FROM documents d WHERE d.id = $2)')}
       SELECT p.ordinal, s.score FROM scores s JOIN passage_spans p ON p.id = s.id ORDER BY s.score DESC, p.ordinal`,
      [clean(terms), documentId],
    );
    const best = found[0]?.score ?? 0;
    if (best <= 0) continue;
    for (const { ordinal, score } of found) scores.set(ordinal, score / best);
  }
  return out;
}
