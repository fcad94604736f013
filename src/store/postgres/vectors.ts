import type { PreparedVector, UnembeddedPassage, VectorHit, VectorStore } from '../store.js';
import { compact, FOLDED_DIMENSIONS } from '../vectors.js';
import type { Db } from './db.js';

// Passage vectors on PostgreSQL (pgvector 0.7 or later), as in SQLite: every model's vectors folded to
// 512 dimensions (../vectors.ts), their sign bits scanned by Hamming distance for candidates, which their
// halfvec(512) then ranks by cosine (db/vectors.sql). The table exists only where the server has
// pgvector; without it, unavailable() says so in one line and documents are searched by keywords alone.

/** Candidates the sign scan passes on, at least: enough that the cosine ranking finds the true nearest. */
const CANDIDATES = 400;
const OVERFETCH = 4;

const COLUMNS = `d.slug, d.title, d.path, p.document_id AS "documentId", p.ordinal, p.heading_path AS "headingPath",
  p.start_offset AS start, p.end_offset AS "end"`;

/**
 * A vector as pgvector's text input: its stored int8 form (as SQLite keeps it, padded with zeros to 512),
 * '[12,-3,…]'. Cosine needs no unit length, and small integers are quick to write and to read.
 */
function literal(vector: ArrayLike<number>): string {
  const { int8 } = compact(vector);
  const values = new Int8Array(int8.buffer, int8.byteOffset, int8.length).join(',');
  const padding = FOLDED_DIMENSIONS - int8.length;
  return `[${values}${padding > 0 ? ',0'.repeat(padding) : ''}]`;
}

export class PgVectors implements VectorStore {
  private checked?: Promise<string | undefined>;

  constructor(private readonly db: Db) {}

  unavailable(): Promise<string | undefined> {
    this.checked ??= this.db
      .one<{ version: string | null; table: boolean; bits: boolean }>(
        `SELECT (SELECT extversion FROM pg_catalog.pg_extension WHERE extname = 'vector') AS version,
           pg_catalog.to_regclass('passage_vectors') IS NOT NULL AS "table",
           pg_catalog.to_regclass('passage_vector_signs') IS NOT NULL AS bits`,
      )
      .then((r) => {
        if (!r?.version)
          return `The PostgreSQL server ${this.db.location} has no pgvector extension (install it, e.g. postgresql-15-pgvector, then run agent db migrate as the tables' owner). Until then`;
        const [major = 0, minor = 0] = r.version.split('.').map(Number);
        if (major === 0 && minor < 7)
          return `The PostgreSQL server ${this.db.location} has pgvector ${r.version}, older than 0.7 (halfvec): upgrade it (ALTER EXTENSION vector UPDATE). Until then`;
        if (!r.table || !r.bits)
          return `The database ${this.db.location} has pgvector but ${r.table ? 'passage vectors kept by an earlier version' : 'no passage_vectors table yet'}: its owner runs agent db migrate. Until then`;
        return undefined;
      });
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
      `WITH kept AS (
         INSERT INTO passage_vectors (model, hash, vector)
         SELECT $1, pg_catalog.decode(h, 'hex'), v::halfvec(512)
         FROM ROWS FROM (pg_catalog.unnest($2::text[]), pg_catalog.unnest($3::text[])) AS u (h, v)
         ON CONFLICT (model, hash) DO NOTHING
         RETURNING model, hash, vector
       )
       INSERT INTO passage_vector_signs (model, hash, bits)
       SELECT model, hash, binary_quantize(vector) FROM kept`,
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
      `WITH candidates AS MATERIALIZED (
         SELECT hash FROM passage_vector_signs WHERE model = $2
         ORDER BY bits <~> binary_quantize($1::halfvec(512)) LIMIT $6
       ),
       near AS MATERIALIZED (
         SELECT v.hash, 1 - (v.vector <=> $1::halfvec(512)) AS similarity
         FROM candidates c JOIN passage_vectors v ON v.model = $2 AND v.hash = c.hash
         ORDER BY similarity DESC LIMIT $5
       )
       SELECT ${COLUMNS}, near.similarity FROM near JOIN passage_spans p ON p.hash = near.hash
       JOIN documents d ON d.id = p.document_id
       WHERE d.root = $3 ORDER BY near.similarity DESC, p.id LIMIT $4`,
      [q, model, root, limit, limit * OVERFETCH, Math.max(CANDIDATES, limit * OVERFETCH * 2)],
    );
    if (hits.length === limit) return hits;
    // Fewer than asked: other folders' vectors crowded this one's out of the candidates, or the folder
    // has no more. Rank this folder's alone.
    return this.ranked('d.root = $3', [q, model, root, limit]);
  }

  /** Every passage that `where` keeps ($3) ranked by cosine distance: one document's, or one folder's. */
  private ranked(where: string, params: unknown[]): Promise<VectorHit[]> {
    return this.db.query<VectorHit>(
      `SELECT ${COLUMNS}, 1 - (v.vector <=> $1::halfvec(512)) AS similarity
       FROM documents d JOIN passage_spans p ON p.document_id = d.id
       JOIN passage_vectors v ON v.model = $2 AND v.hash = p.hash
       WHERE ${where} ORDER BY v.vector <=> $1::halfvec(512), p.id LIMIT $4`,
      params,
    );
  }

  async prune(): Promise<number> {
    const row = await this.db.one<{ n: number }>(
      `WITH gone AS (
         DELETE FROM passage_vectors v WHERE NOT EXISTS (SELECT 1 FROM passage_spans p WHERE p.hash = v.hash)
         RETURNING model, hash
       ),
       signs AS (
         DELETE FROM passage_vector_signs s USING gone WHERE s.model = gone.model AND s.hash = gone.hash
       )
       SELECT count(*)::int AS n FROM gone`,
    );
    return row?.n ?? 0;
  }
}
