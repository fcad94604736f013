import type { PreparedVector, UnembeddedPassage, VectorHit, VectorStore } from '../store.js';
import { unit } from '../vectors.js';
import type { Db } from './db.js';

// Passage vectors on PostgreSQL: pgvector's halfvec (two bytes a dimension), compared by its cosine
// distance operator. The table exists only where the server has pgvector (db/vectors.sql); without it,
// unavailable() says so in one line and documents are searched by keywords alone.

const OVERFETCH = 4;

const COLUMNS = `d.slug, d.title, d.path, p.document_id AS "documentId", p.ordinal, p.heading_path AS "headingPath",
  p.start_offset AS start, p.end_offset AS "end"`;

/** A vector, made unit length, as pgvector's text input: '[0.1,-0.2,…]'. */
const literal = (v: ArrayLike<number>) => `[${Array.from(unit(v), (x) => x.toPrecision(5)).join(',')}]`;

export class PgVectors implements VectorStore {
  private checked?: Promise<string | undefined>;

  constructor(private readonly db: Db) {}

  unavailable(): Promise<string | undefined> {
    this.checked ??= this.db
      .one<{ ext: boolean; table: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'vector') AS ext,
           pg_catalog.to_regclass('passage_vectors') IS NOT NULL AS "table"`,
      )
      .then((r) =>
        r?.ext && r.table
          ? undefined
          : r?.ext
            ? `The database ${this.db.location} has pgvector but no passage_vectors table yet: its owner runs agent db migrate. Until then`
            : `The PostgreSQL server ${this.db.location} has no pgvector extension (install it, e.g. postgresql-15-pgvector, then run agent db migrate as the tables' owner). Until then`,
      );
    return this.checked.then((reason) => reason && `${reason} documents are searched by keywords only.`);
  }

  async countMissing(root: string, model: string): Promise<number> {
    const row = await this.db.one<{ n: number }>(
      `SELECT count(DISTINCT p.hash)::int AS n FROM passage_spans p JOIN documents d ON d.id = p.document_id
       WHERE d.root = $1 AND p.hash IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM passage_vectors v WHERE v.model = $2 AND v.hash = p.hash)`,
      [root, model],
    );
    return row?.n ?? 0;
  }

  async missing(root: string, model: string, limit: number, after = 0): Promise<UnembeddedPassage[]> {
    return this.db.query<UnembeddedPassage>(
      `SELECT p.id, pg_catalog.encode(p.hash, 'hex') AS hash, p.document_id AS "documentId",
         p.heading_path AS "headingPath", p.start_offset AS start, p.end_offset AS "end"
       FROM passage_spans p JOIN documents d ON d.id = p.document_id
       WHERE p.id > $4 AND d.root = $1 AND p.hash IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM passage_vectors v WHERE v.model = $2 AND v.hash = p.hash)
       ORDER BY p.id LIMIT $3`,
      [root, model, limit, after],
    );
  }

  /** The vector as pgvector's text input. */
  prepare(vector: ArrayLike<number>): PreparedVector {
    return literal(vector) as unknown as PreparedVector;
  }

  async put(model: string, rows: { hash: string; vector: PreparedVector }[]): Promise<void> {
    if (rows.length === 0) return;
    await this.db.query(
      `INSERT INTO passage_vectors (model, hash, vector)
       SELECT $1, pg_catalog.decode(h, 'hex'), v::halfvec
       FROM ROWS FROM (pg_catalog.unnest($2::text[]), pg_catalog.unnest($3::text[])) AS u (h, v)
       ON CONFLICT (model, hash) DO NOTHING`,
      [model, rows.map((r) => r.hash), rows.map((r) => r.vector as unknown as string)],
    );
  }

  async nearest(
    root: string,
    model: string,
    query: ArrayLike<number>,
    limit: number,
    documentId?: number,
  ): Promise<VectorHit[]> {
    const q = literal(query);
    if (documentId !== undefined) return this.ranked('p.document_id = $3', [q, model, documentId, limit]);
    const hits = await this.db.query<VectorHit>(
      `WITH near AS MATERIALIZED (
         SELECT hash, 1 - (vector <=> $1::halfvec) AS similarity FROM passage_vectors
         WHERE model = $2 ORDER BY vector <=> $1::halfvec LIMIT $5
       )
       SELECT ${COLUMNS}, near.similarity FROM near JOIN passage_spans p ON p.hash = near.hash
       JOIN documents d ON d.id = p.document_id
       WHERE d.root = $3 ORDER BY near.similarity DESC, p.id LIMIT $4`,
      [q, model, root, limit, limit * OVERFETCH],
    );
    if (hits.length === limit) return hits;
    const others = await this.db.one('SELECT 1 FROM documents WHERE root <> $1 LIMIT 1', [root]);
    if (!others) return hits;
    // Other folders' passages crowded this one's out of the nearest: rank this folder's alone.
    return this.ranked('d.root = $3', [q, model, root, limit]);
  }

  /** Every passage that `where` keeps ($3) ranked by cosine distance: one document's, or one folder's. */
  private ranked(where: string, params: unknown[]): Promise<VectorHit[]> {
    return this.db.query<VectorHit>(
      `SELECT ${COLUMNS}, 1 - (v.vector <=> $1::halfvec) AS similarity
       FROM documents d JOIN passage_spans p ON p.document_id = d.id
       JOIN passage_vectors v ON v.model = $2 AND v.hash = p.hash
       WHERE ${where} ORDER BY v.vector <=> $1::halfvec, p.id LIMIT $4`,
      params,
    );
  }

  async prune(): Promise<number> {
    const row = await this.db.one<{ n: number }>(
      `WITH gone AS (
         DELETE FROM passage_vectors v WHERE NOT EXISTS (SELECT 1 FROM passage_spans p WHERE p.hash = v.hash)
         RETURNING 1
       )
       SELECT count(*)::int AS n FROM gone`,
    );
    return row?.n ?? 0;
  }
}
