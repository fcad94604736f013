import type { PreparedVector, UnembeddedPassage, VectorHit, VectorStore } from '../store.js';
import { compact, cosineInt8 as cosine, FOLDED_DIMENSIONS } from '../vectors.js';
import type { Db } from './db.js';

// Passage vectors on PostgreSQL (pgvector 0.7 or later), as in SQLite: every model's vectors folded to
// 512 dimensions (../vectors.ts), their sign bits (bit(512)) scanned by pgvector's Hamming distance for
// candidates, whose int8 components (bytea, as SQLite keeps them) are then ranked by cosine here
// (db/vectors.sql). The tables exist only where the server has pgvector; without it, unavailable() says
// so in one line and documents are searched by keywords alone.

/** Candidates the sign scan passes on, at least: enough that the cosine ranking finds the true nearest. */
const CANDIDATES = 400;
const OVERFETCH = 4;

const COLUMNS = `d.slug, d.title, d.path, p.document_id AS "documentId", p.ordinal, p.heading_path AS "headingPath",
  p.start_offset AS start, p.end_offset AS "end"`;

/** A vector as kept: its int8 components padded with zeros to 512 (which changes no cosine), and signs. */
interface Kept {
  int8: Int8Array;
  /**
   * bit(512) input in hex ('x…'): bit i set where component i is positive, as pgvector's binary_quantize
   * says it (bit 0 is the first byte's highest).
   */
  signs: string;
}

/**
 * Each byte with its bits in reverse order: compact() sets bit i from a byte's lowest, bit(512) from its
 * highest.
 */
const REVERSED = Uint8Array.from({ length: 256 }, (_, b) => {
  let r = 0;
  for (let k = 0; k < 8; k++) r |= ((b >> k) & 1) << (7 - k);
  return r;
});

function kept(vector: ArrayLike<number>): Kept {
  const { int8: bytes, bits: signs } = compact(vector);
  const int8 = new Int8Array(FOLDED_DIMENSIONS);
  int8.set(new Int8Array(bytes.buffer, bytes.byteOffset, bytes.length));
  // compact()'s sign bits, in pgvector's order; padded with zeros as the components are.
  const bits = Buffer.alloc(FOLDED_DIMENSIONS / 8);
  for (let k = 0; k < signs.length; k++) bits[k] = REVERSED[signs[k]!]!;
  return { int8, signs: `x${bits.toString('hex')}` };
}

const int8Of = (bytes: Buffer): Int8Array => new Int8Array(bytes.buffer, bytes.byteOffset, bytes.length);
const hex = (bytes: Int8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('hex');

export class PgVectors implements VectorStore {
  private checked?: Promise<string | undefined>;

  constructor(private readonly db: Db) {}

  unavailable(): Promise<string | undefined> {
    this.checked ??= this.db
      .one<{ version: string | null; table: boolean; bits: boolean; bytes: boolean }>(
        `SELECT (SELECT extversion FROM pg_catalog.pg_extension WHERE extname = 'vector') AS version,
           pg_catalog.to_regclass('passage_vectors') IS NOT NULL AS "table",
           pg_catalog.to_regclass('passage_vector_signs') IS NOT NULL AS bits,
           EXISTS (SELECT 1 FROM pg_catalog.pg_attribute
             WHERE attrelid = pg_catalog.to_regclass('passage_vectors') AND attname = 'vector'
               AND atttypid = 'bytea'::pg_catalog.regtype) AS bytes`,
      )
      .then((r) => {
        if (!r?.version)
          return `The PostgreSQL server ${this.db.location} has no pgvector extension (install it, e.g. postgresql-15-pgvector, then run agent db migrate as the tables' owner). Until then`;
        const [major = 0, minor = 0] = r.version.split('.').map(Number);
        if (major === 0 && minor < 7)
          return `The PostgreSQL server ${this.db.location} has pgvector ${r.version}, older than 0.7 (halfvec): upgrade it (ALTER EXTENSION vector UPDATE). Until then`;
        if (!r.table || !r.bits || !r.bytes)
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

  prepare(vector: ArrayLike<number>): PreparedVector {
    return kept(vector) as unknown as PreparedVector;
  }

  async put(model: string, rows: { hash: string; vector: PreparedVector }[]): Promise<void> {
    if (rows.length === 0) return;
    const vectors = rows.map((r) => r.vector as unknown as Kept);
    await this.db.query(
      `WITH given AS MATERIALIZED (
         SELECT pg_catalog.decode(h, 'hex') AS hash, pg_catalog.decode(v, 'hex') AS vector, b
         FROM ROWS FROM (pg_catalog.unnest($2::text[]), pg_catalog.unnest($3::text[]), pg_catalog.unnest($4::text[]))
           AS u (h, v, b)
       ), kept AS (
         INSERT INTO passage_vectors (model, hash, vector) SELECT $1, hash, vector FROM given
         ON CONFLICT (model, hash) DO NOTHING
         RETURNING hash
       )
       INSERT INTO passage_vector_signs (model, hash, bits)
       SELECT $1, given.hash, given.b::bit(512) FROM kept JOIN given ON given.hash = kept.hash`,
      [model, rows.map((r) => r.hash), vectors.map((v) => hex(v.int8)), vectors.map((v) => v.signs)],
    );
  }

  async nearest(
    root: string,
    model: string,
    query: ArrayLike<number>,
    limit: number,
    documentId?: number,
  ): Promise<VectorHit[]> {
    const q = kept(query);
    if (documentId !== undefined) {
      // One document's passages: few enough to rank every one.
      const rows = await this.db.query<Omit<VectorHit, 'similarity'> & { vector: Buffer; id: number }>(
        `SELECT ${COLUMNS}, p.id, v.vector FROM passage_spans p JOIN documents d ON d.id = p.document_id
         JOIN passage_vectors v ON v.model = $1 AND v.hash = p.hash WHERE p.document_id = $2`,
        [model, documentId],
      );
      return rows
        .map(({ vector, id, ...hit }) => ({
          hit: { ...hit, similarity: cosine(q.int8, int8Of(vector)) },
          id,
        }))
        .sort((a, b) => b.hit.similarity - a.hit.similarity || a.id - b.id)
        .slice(0, limit)
        .map((r) => r.hit);
    }
    const take = Math.max(CANDIDATES, limit * OVERFETCH * 2);
    const hits = await this.near(root, model, q, limit, take, false);
    if (hits.length === limit) return hits;
    // Fewer than asked: other folders' vectors crowded this one's out of the candidates, or the folder
    // has no more. Scan this folder's alone.
    return this.near(root, model, q, limit, take, true);
  }

  /**
   * The `take` vectors of `model` nearest by their signs (only the folder's, if `inFolder`), ranked by
   * cosine, then the folder's passages of the best `limit * OVERFETCH` of them.
   */
  private async near(
    root: string,
    model: string,
    q: Kept,
    limit: number,
    take: number,
    inFolder: boolean,
  ): Promise<VectorHit[]> {
    const folder = `AND EXISTS (SELECT 1 FROM passage_spans p JOIN documents d ON d.id = p.document_id
      WHERE p.hash = s.hash AND d.root = $4)`;
    const candidates = await this.db.query<{ hash: Buffer; vector: Buffer }>(
      `WITH c AS MATERIALIZED (
         SELECT s.hash FROM passage_vector_signs s WHERE s.model = $2 ${inFolder ? folder : ''}
         ORDER BY s.bits <~> $1::bit(512) LIMIT $3
       )
       SELECT v.hash, v.vector FROM c JOIN passage_vectors v ON v.model = $2 AND v.hash = c.hash`,
      inFolder ? [q.signs, model, take, root] : [q.signs, model, take],
    );
    const best = candidates
      .map((c) => ({ hash: c.hash.toString('hex'), similarity: cosine(q.int8, int8Of(c.vector)) }))
      .sort((a, b) => b.similarity - a.similarity || (a.hash < b.hash ? -1 : 1))
      .slice(0, limit * OVERFETCH);
    if (best.length === 0) return [];
    return this.db.query<VectorHit>(
      `SELECT ${COLUMNS}, u.similarity
       FROM ROWS FROM (pg_catalog.unnest($1::text[]), pg_catalog.unnest($2::float8[])) AS u (h, similarity)
       JOIN passage_spans p ON p.hash = pg_catalog.decode(u.h, 'hex') JOIN documents d ON d.id = p.document_id
       WHERE d.root = $3 ORDER BY u.similarity DESC, p.id LIMIT $4`,
      [best.map((b) => b.hash), best.map((b) => b.similarity), root, limit],
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
