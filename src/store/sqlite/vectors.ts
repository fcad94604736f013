import { createRequire } from 'node:module';
import { errorMessage } from '../../errors.js';
import type { PreparedVector, UnembeddedPassage, VectorHit, VectorStore } from '../store.js';
import { compact, nearestBits, signBits } from '../vectors.js';
import { readIndex } from './health.js';
import { type Db, writeError } from './open.js';

// Passage vectors in SQLite (compact forms in ../vectors.ts): the sign bits of a model's vectors, packed
// in chunks, are scanned in memory for candidates, which sqlite-vec's vec_distance_cosine then ranks by
// their int8 vectors. The extension (a prebuilt library the sqlite-vec package ships) is loaded the first
// time vectors are used, never at start-up. A model's name is kept once (vector_models); rows and chunks
// name it by number, and chunks name their vectors by row id, so that the vectors stay about the size
// of the text they stand for.

/** Candidates the sign scan passes on, at least: enough that the int8 ranking finds the true nearest. */
const CANDIDATES = 400;
/** Nearest texts kept per passage asked for: a text may be in other folders, or in several documents. */
const OVERFETCH = 4;
/** Vectors per chunk when chunks are made again from the vectors. */
const CHUNK_ROWS = 4096;

const COLUMNS = `d.slug, d.title, d.path, p.document_id AS documentId, p.ordinal, p.heading_path AS headingPath,
  p.start_offset AS start, p.end_offset AS "end"`;

interface Packed {
  key: string;
  bits: Uint8Array;
  ids: Uint32Array;
}

const idsBlob = (ids: number[]): Buffer => Buffer.from(Uint32Array.from(ids).buffer);

export class SqliteVectors implements VectorStore {
  private loaded?: Promise<string | undefined>;
  /** Model names' numbers, once known (a number is never reused for another name). */
  private readonly models = new Map<string, number>();
  /** Models whose chunks were found to cover their vectors in this process. */
  private readonly checked = new Set<number>();
  /** The last model's packed sign bits and ids (see packed()). */
  private cache?: Packed & { modelId: number };

  constructor(private readonly db: Db) {}

  unavailable(): Promise<string | undefined> {
    this.loaded ??= (async () => {
      try {
        // require(), not import(): sqlite-vec has a CommonJS entry, and an import() here would keep the
        // SQLite store (and the commands that open it: cost, notes, sessions…) out of a file of their own,
        // and out of the code cache (see scripts/bundle.mjs).
        const { load } = createRequire(import.meta.url)('sqlite-vec') as typeof import('sqlite-vec');
        load(this.db);
        return undefined;
      } catch (error) {
        return `The sqlite-vec extension could not be loaded (${errorMessage(error)}): documents are searched by keywords only.`;
      }
    })();
    return this.loaded;
  }

  /** The model's number; -1 (matching nothing) for a model never stored here. */
  private modelId(name: string): number {
    let id = this.models.get(name);
    if (id === undefined) {
      id = this.db.prepare('SELECT id FROM vector_models WHERE name = ?').pluck().get(name) as
        | number
        | undefined;
      if (id === undefined) return -1;
      this.models.set(name, id);
    }
    return id;
  }

  async countMissing(root: string, model: string): Promise<number> {
    return this.db
      .prepare(
        `SELECT count(DISTINCT p.hash) FROM passage_spans p JOIN documents d ON d.id = p.document_id
         WHERE d.root = ? AND p.hash IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM passage_vectors v WHERE v.model_id = ? AND v.hash = p.hash)`,
      )
      .pluck()
      .get(root, this.modelId(model)) as number;
  }

  async missing(root: string, model: string, limit: number, after = 0): Promise<UnembeddedPassage[]> {
    // Walked by passage id, so that embedding a folder reads each passage once, however many batches.
    return this.db
      .prepare(
        `SELECT p.id, lower(hex(p.hash)) AS hash, p.document_id AS documentId, p.heading_path AS headingPath,
           p.start_offset AS start, p.end_offset AS "end"
         FROM passage_spans p CROSS JOIN documents d ON d.id = p.document_id
         WHERE p.id > ? AND d.root = ? AND p.hash IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM passage_vectors v WHERE v.model_id = ? AND v.hash = p.hash)
         ORDER BY p.id LIMIT ?`,
      )
      .all(after, root, this.modelId(model), limit) as UnembeddedPassage[];
  }

  prepare(vector: ArrayLike<number>): PreparedVector {
    return compact(vector) as unknown as PreparedVector;
  }

  async put(model: string, rows: { hash: string; vector: PreparedVector }[]): Promise<void> {
    const db = this.db;
    const insert = db.prepare(
      'INSERT OR IGNORE INTO passage_vectors (model_id, hash, vector) VALUES (?, unhex(?), ?)',
    );
    const chunk = db.prepare('INSERT INTO vector_chunks (model_id, ids, bits) VALUES (?, ?, ?)');
    let modelId = -1;
    try {
      db.transaction(() => {
        modelId = this.modelId(model);
        if (modelId < 0)
          modelId = Number(
            db.prepare('INSERT INTO vector_models (name) VALUES (?)').run(model).lastInsertRowid,
          );
        const ids: number[] = [];
        const bits: Uint8Array[] = [];
        for (const r of rows) {
          const { int8, bits: b } = r.vector as unknown as ReturnType<typeof compact>;
          const done = insert.run(modelId, r.hash, int8);
          if (done.changes === 0) continue;
          ids.push(Number(done.lastInsertRowid));
          bits.push(b);
        }
        if (ids.length > 0) chunk.run(modelId, idsBlob(ids), Buffer.concat(bits));
      }).immediate();
    } catch (error) {
      throw writeError(db, error);
    }
    this.models.set(model, modelId);
  }

  async nearest(
    root: string,
    model: string,
    query: ArrayLike<number>,
    limit: number,
    documentId?: number,
  ): Promise<VectorHit[]> {
    const db = this.db;
    const modelId = this.modelId(model);
    const { int8: q, bits: queryBits } = compact(query);
    if (documentId !== undefined)
      return readIndex(db, () =>
        this.ranked('p.document_id = @documentId', { q, modelId, documentId, limit }),
      );
    return readIndex(db, () => {
      this.cover(modelId);
      // Candidates by sign bits, in memory; ranked by their int8 vectors; then joined to their passages.
      const { bits, ids } = this.packed(modelId);
      const picked = nearestBits(bits, queryBits, Math.max(CANDIDATES, limit * OVERFETCH * 2));
      const hits = db
        .prepare(
          `WITH near AS MATERIALIZED (
             SELECT v.hash, 1 - vec_distance_cosine(vec_int8(v.vector), vec_int8(@q)) AS similarity
             FROM json_each(@candidates) c CROSS JOIN passage_vectors v ON v.id = c.value
             ORDER BY similarity DESC LIMIT @fetch
           )
           SELECT ${COLUMNS}, near.similarity FROM near CROSS JOIN passage_spans p ON p.hash = near.hash
           JOIN documents d ON d.id = p.document_id
           WHERE d.root = @root ORDER BY near.similarity DESC, p.id LIMIT @limit`,
        )
        .all({
          q,
          root,
          limit,
          fetch: limit * OVERFETCH,
          candidates: JSON.stringify(picked.map((i) => ids[i])),
        }) as VectorHit[];
      if (hits.length === limit || !this.otherFolders(root)) return hits;
      // Other folders' passages crowded this one's out of the candidates: rank this folder's alone.
      return this.ranked('d.root = @root', { q, modelId, root, limit });
    });
  }

  /**
   * A model's sign bits and ids, packed in one array each: read once per process and kept while the
   * chunks stay as they are (their count, last id and size say so, read without reading the blobs).
   */
  private packed(modelId: number): Packed {
    const key = this.chunksKey(modelId);
    if (this.cache?.modelId === modelId && this.cache.key === key) return this.cache;
    const chunks = this.db
      .prepare('SELECT ids, bits FROM vector_chunks WHERE model_id = ? ORDER BY id')
      .all(modelId) as { ids: Buffer; bits: Buffer }[];
    this.cache = { modelId, key, ...pack(chunks) };
    return this.cache;
  }

  private chunksKey(modelId: number): string {
    return this.db
      .prepare(
        `SELECT count(*) || ':' || coalesce(max(id), 0) || ':' || coalesce(sum(length(bits)), 0)
         FROM vector_chunks WHERE model_id = ?`,
      )
      .pluck()
      .get(modelId) as string;
  }

  /**
   * Once a process, that the model's chunks hold every one of its vectors; if not (vectors kept by an
   * upgrade, which made no chunks), makes them again from the vectors: written where the file can be,
   * else only in memory.
   */
  private cover(modelId: number): void {
    if (modelId < 0 || this.checked.has(modelId)) return;
    const db = this.db;
    const covered = () =>
      db.prepare('SELECT count(*) FROM passage_vectors WHERE model_id = ?').pluck().get(modelId) ===
      db
        .prepare('SELECT coalesce(sum(length(ids)), 0) / 4 FROM vector_chunks WHERE model_id = ?')
        .pluck()
        .get(modelId);
    if (!covered()) {
      try {
        // Read and written in one transaction: vectors another process adds meanwhile keep their chunk.
        db.transaction(() => {
          if (covered()) return;
          db.prepare('DELETE FROM vector_chunks WHERE model_id = ?').run(modelId);
          const insert = db.prepare('INSERT INTO vector_chunks (model_id, ids, bits) VALUES (?, ?, ?)');
          for (const c of this.chunksFromVectors(modelId)) insert.run(modelId, c.ids, c.bits);
        }).immediate();
      } catch (error) {
        if (!db.readonly) throw writeError(db, error);
        this.cache = { modelId, key: this.chunksKey(modelId), ...pack(this.chunksFromVectors(modelId)) };
      }
    }
    this.checked.add(modelId);
  }

  /** The model's vectors' ids and sign bits, in chunks of CHUNK_ROWS. */
  private chunksFromVectors(modelId: number): { ids: Buffer; bits: Buffer }[] {
    const chunks: { ids: Buffer; bits: Buffer }[] = [];
    let ids: number[] = [];
    let bits: Uint8Array[] = [];
    const flush = () => {
      if (ids.length) chunks.push({ ids: idsBlob(ids), bits: Buffer.concat(bits) });
      ids = [];
      bits = [];
    };
    const rows = this.db
      .prepare('SELECT id, vector FROM passage_vectors WHERE model_id = ? ORDER BY id')
      .raw()
      .iterate(modelId) as Iterable<[number, Buffer]>;
    for (const [id, vector] of rows) {
      ids.push(id);
      bits.push(signBits(new Int8Array(vector.buffer, vector.byteOffset, vector.length)));
      if (ids.length === CHUNK_ROWS) flush();
    }
    flush();
    return chunks;
  }

  /** Every passage that `where` keeps ranked by its int8 vector: one document's, or one folder's. */
  private ranked(where: string, params: Record<string, unknown>): VectorHit[] {
    return this.db
      .prepare(
        `SELECT ${COLUMNS}, 1 - vec_distance_cosine(vec_int8(v.vector), vec_int8(@q)) AS similarity
         FROM documents d JOIN passage_spans p ON p.document_id = d.id
         JOIN passage_vectors v ON v.model_id = @modelId AND v.hash = p.hash
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
    const kept = db.prepare('SELECT 1 FROM passage_vectors WHERE id = ?').pluck();
    const update = db.prepare('UPDATE vector_chunks SET ids = ?, bits = ? WHERE id = ?');
    const remove = db.prepare('DELETE FROM vector_chunks WHERE id = ?');
    const chunks = db.prepare('SELECT id, ids, bits FROM vector_chunks').iterate() as Iterable<{
      id: number;
      ids: Buffer;
      bits: Buffer;
    }>;
    const changes: [number, number[], Buffer][] = [];
    for (const c of chunks) {
      const ids = idsOf(c.ids);
      const width = c.bits.length / ids.length;
      const stay = [...ids.keys()].filter((i) => kept.get(ids[i]));
      if (stay.length === ids.length) continue;
      changes.push([
        c.id,
        stay.map((i) => ids[i]!),
        Buffer.concat(stay.map((i) => c.bits.subarray(i * width, (i + 1) * width))),
      ]);
    }
    for (const [id, ids, bits] of changes)
      if (ids.length === 0) remove.run(id);
      else update.run(idsBlob(ids), bits, id);
  }
}

/** A blob of ids as numbers (copied: a blob's bytes need not be 4-aligned). */
const idsOf = (blob: Buffer): Uint32Array => new Uint32Array(Uint8Array.from(blob).buffer);

/** Chunks' bits and ids, each in one array. */
function pack(chunks: { ids: Buffer; bits: Buffer }[]): { bits: Uint8Array; ids: Uint32Array } {
  const bits = new Uint8Array(chunks.reduce((n, c) => n + c.bits.length, 0));
  const ids = new Uint32Array(chunks.reduce((n, c) => n + c.ids.length / 4, 0));
  let b = 0;
  let i = 0;
  for (const c of chunks) {
    bits.set(c.bits, b);
    b += c.bits.length;
    ids.set(idsOf(c.ids), i);
    i += c.ids.length / 4;
  }
  return { bits, ids };
}
