import { errorMessage } from '../../errors.js';
import type { UnembeddedPassage, VectorHit, VectorStore } from '../store.js';
import { fold, nearestBits, signBits, toInt8 } from '../vectors.js';
import { readIndex } from './health.js';
import { type Db, writeError } from './open.js';

// Passage vectors in SQLite (compact forms in ../vectors.ts): the sign bits of a model's vectors, packed
// in chunks, are scanned in memory for candidates, which sqlite-vec's vec_distance_cosine then ranks by
// their int8 vectors. The extension (a prebuilt library the sqlite-vec package ships) is loaded the first
// time vectors are used, never at start-up.

/** Candidates the sign scan passes on, at least: enough that the int8 ranking finds the true nearest. */
const CANDIDATES = 400;
/** Nearest texts kept per passage asked for: a text may be in other folders, or in several documents. */
const OVERFETCH = 4;
const HASH_BYTES = 16;

const COLUMNS = `d.slug, d.title, d.path, p.document_id AS documentId, p.ordinal, p.heading_path AS headingPath,
  p.start_offset AS start, p.end_offset AS "end"`;

const int8 = (query: Float32Array) => Buffer.from(toInt8(fold(query)).buffer);

export class SqliteVectors implements VectorStore {
  private loaded?: Promise<string | undefined>;
  /** The last model's packed sign bits (see packed()). */
  private cache?: { model: string; key: string; bits: Uint8Array; hashes: Buffer };

  constructor(private readonly db: Db) {}

  unavailable(): Promise<string | undefined> {
    this.loaded ??= (async () => {
      try {
        const { load } = await import('sqlite-vec');
        load(this.db);
        return undefined;
      } catch (error) {
        return `The sqlite-vec extension could not be loaded (${errorMessage(error)}): documents are searched by keywords only.`;
      }
    })();
    return this.loaded;
  }

  async countMissing(root: string, model: string): Promise<number> {
    return this.db
      .prepare(
        `SELECT count(DISTINCT p.hash) FROM passage_spans p JOIN documents d ON d.id = p.document_id
         WHERE d.root = ? AND p.hash IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM passage_vectors v WHERE v.model = ? AND v.hash = p.hash)`,
      )
      .pluck()
      .get(root, model) as number;
  }

  async missing(root: string, model: string, limit: number, after = 0): Promise<UnembeddedPassage[]> {
    // Walked by passage id, so that embedding a folder reads each passage once, however many batches.
    return this.db
      .prepare(
        `SELECT p.id, lower(hex(p.hash)) AS hash, p.document_id AS documentId, p.heading_path AS headingPath,
           p.start_offset AS start, p.end_offset AS "end"
         FROM passage_spans p CROSS JOIN documents d ON d.id = p.document_id
         WHERE p.id > ? AND d.root = ? AND p.hash IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM passage_vectors v WHERE v.model = ? AND v.hash = p.hash)
         ORDER BY p.id LIMIT ?`,
      )
      .all(after, root, model, limit) as UnembeddedPassage[];
  }

  async put(model: string, rows: { hash: string; vector: Float32Array }[]): Promise<void> {
    const db = this.db;
    const insert = db.prepare(
      'INSERT OR IGNORE INTO passage_vectors (model, hash, vector) VALUES (?, unhex(?), ?)',
    );
    const chunk = db.prepare('INSERT INTO vector_chunks (model, hashes, bits) VALUES (?, ?, ?)');
    try {
      db.transaction(() => {
        const kept = rows.filter((r) => insert.run(model, r.hash, int8(r.vector)).changes > 0);
        if (kept.length === 0) return;
        chunk.run(
          model,
          Buffer.from(kept.map((r) => r.hash).join(''), 'hex'),
          Buffer.concat(kept.map((r) => signBits(r.vector))),
        );
      }).immediate();
    } catch (error) {
      throw writeError(db, error);
    }
  }

  async nearest(
    root: string,
    model: string,
    query: Float32Array,
    limit: number,
    documentId?: number,
  ): Promise<VectorHit[]> {
    const db = this.db;
    const q = int8(query);
    return readIndex(db, () => {
      if (documentId !== undefined)
        return this.ranked('p.document_id = @documentId', { q, model, documentId, limit });
      // Candidates by sign bits, in memory; ranked by their int8 vectors; then joined to their passages.
      const { bits, hashes } = this.packed(model);
      const picked = nearestBits(bits, signBits(query), Math.max(CANDIDATES, limit * OVERFETCH * 2));
      const candidates = picked.map((i) => hashes.toString('hex', i * HASH_BYTES, (i + 1) * HASH_BYTES));
      const hits = db
        .prepare(
          `WITH near AS MATERIALIZED (
             SELECT v.hash, 1 - vec_distance_cosine(vec_int8(v.vector), vec_int8(@q)) AS similarity
             FROM json_each(@candidates) c CROSS JOIN passage_vectors v ON v.model = @model AND v.hash = unhex(c.value)
             ORDER BY similarity DESC LIMIT @fetch
           )
           SELECT ${COLUMNS}, near.similarity FROM near CROSS JOIN passage_spans p ON p.hash = near.hash
           JOIN documents d ON d.id = p.document_id
           WHERE d.root = @root ORDER BY near.similarity DESC, p.id LIMIT @limit`,
        )
        .all({
          q,
          model,
          root,
          limit,
          fetch: limit * OVERFETCH,
          candidates: JSON.stringify(candidates),
        }) as VectorHit[];
      if (hits.length === limit || !this.otherFolders(root)) return hits;
      // Other folders' passages crowded this one's out of the candidates: rank this folder's alone.
      return this.ranked('d.root = @root', { q, model, root, limit });
    });
  }

  /**
   * A model's sign bits and hashes, packed in one array each: read once per process and kept while the
   * chunks stay as they are (their count, last id and size say so, read without reading the blobs).
   */
  private packed(model: string): { bits: Uint8Array; hashes: Buffer } {
    const db = this.db;
    const key = db
      .prepare(
        `SELECT count(*) || ':' || coalesce(max(id), 0) || ':' || coalesce(sum(length(bits)), 0)
         FROM vector_chunks WHERE model = ?`,
      )
      .pluck()
      .get(model) as string;
    if (this.cache?.model === model && this.cache.key === key) return this.cache;
    const chunks = db
      .prepare('SELECT hashes, bits FROM vector_chunks WHERE model = ? ORDER BY id')
      .all(model) as {
      hashes: Buffer;
      bits: Buffer;
    }[];
    const bits = new Uint8Array(chunks.reduce((n, c) => n + c.bits.length, 0));
    let offset = 0;
    for (const c of chunks) {
      bits.set(c.bits, offset);
      offset += c.bits.length;
    }
    this.cache = { model, key, bits, hashes: Buffer.concat(chunks.map((c) => c.hashes)) };
    return this.cache;
  }

  /** Every passage that `where` keeps ranked by its int8 vector: one document's, or one folder's. */
  private ranked(where: string, params: Record<string, unknown>): VectorHit[] {
    return this.db
      .prepare(
        `SELECT ${COLUMNS}, 1 - vec_distance_cosine(vec_int8(v.vector), vec_int8(@q)) AS similarity
         FROM documents d JOIN passage_spans p ON p.document_id = d.id
         JOIN passage_vectors v ON v.model = @model AND v.hash = p.hash
         WHERE ${where} ORDER BY similarity DESC, p.id LIMIT @limit`,
      )
      .all(params) as VectorHit[];
  }

  private otherFolders(root: string): boolean {
    return this.db.prepare('SELECT 1 FROM documents WHERE root <> ? LIMIT 1').get(root) !== undefined;
  }

  /** Forgets vectors no passage has any more, and takes their bits out of the chunks. */
  async prune(): Promise<number> {
    const db = this.db;
    try {
      return db
        .transaction(() => {
          const gone = db
            .prepare(
              `DELETE FROM passage_vectors WHERE NOT EXISTS (SELECT 1 FROM passage_spans p WHERE p.hash = passage_vectors.hash)`,
            )
            .run().changes;
          if (gone > 0) this.repack();
          return gone;
        })
        .immediate();
    } catch (error) {
      throw writeError(db, error);
    }
  }

  /** Rewrites the chunks that hold bits of vectors no longer kept. */
  private repack(): void {
    const db = this.db;
    const kept = db.prepare('SELECT 1 FROM passage_vectors WHERE model = ? AND hash = ?').pluck();
    const update = db.prepare('UPDATE vector_chunks SET hashes = ?, bits = ? WHERE id = ?');
    const remove = db.prepare('DELETE FROM vector_chunks WHERE id = ?');
    const chunks = db.prepare('SELECT id, model, hashes, bits FROM vector_chunks').iterate() as Iterable<{
      id: number;
      model: string;
      hashes: Buffer;
      bits: Buffer;
    }>;
    const changes: [number, Buffer, Buffer][] = [];
    for (const c of chunks) {
      const n = c.hashes.length / HASH_BYTES;
      const width = c.bits.length / n;
      const stay: number[] = [];
      for (let i = 0; i < n; i++)
        if (kept.get(c.model, c.hashes.subarray(i * HASH_BYTES, (i + 1) * HASH_BYTES))) stay.push(i);
      if (stay.length === n) continue;
      changes.push([
        c.id,
        Buffer.concat(stay.map((i) => c.hashes.subarray(i * HASH_BYTES, (i + 1) * HASH_BYTES))),
        Buffer.concat(stay.map((i) => c.bits.subarray(i * width, (i + 1) * width))),
      ]);
    }
    for (const [id, hashes, bits] of changes)
      if (hashes.length === 0) remove.run(id);
      else update.run(hashes, bits, id);
  }
}
