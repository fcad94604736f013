import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { refreshIndex } from '../../src/research/documents/index.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { compact } from '../../src/store/vectors.js';
import { tempDb } from '../support/cli.js';
import { clustered, random } from '../support/vectors.js';

// Passage vectors in SQLite: the nearest passages found through the sign-bit scan are the true nearest
// (by the stored int8 vectors), pruned vectors leave the scan, and a database whose vectors were kept in
// the earlier form (model names in every row, chunks of hashes and one sign bit a model dimension) keeps
// them through the upgrade: nothing is embedded again, and the search finds the same passages.

const DIMS = 1536;
const SPACE = `test:bench@${DIMS}`;
const TOPICS = { topics: 40, noise: 1.2 };

const dirs: string[] = [];
const stores: Store[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close().catch(() => {});
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A folder of `files` Markdown files of ten sections each, indexed; its passages' hashes. */
async function indexed(
  path: string,
  files: number,
): Promise<{ store: Store; dir: string; hashes: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'agent-vectors-'));
  dirs.push(dir);
  for (let f = 0; f < files; f++) {
    const sections = Array.from(
      { length: 10 },
      (_, s) => `## Part ${s}\n\nFile ${f} section ${s} says ${f * 10 + s}.`,
    );
    writeFileSync(join(dir, `doc-${f}.md`), `# Document ${f}\n\n${sections.join('\n\n')}\n`);
  }
  const store = await openStore(path);
  stores.push(store);
  await refreshIndex(store, dir);
  const hashes = [...new Set((await store.vectors.missing(dir, SPACE, 1_000_000)).map((p) => p.hash))];
  return { store, dir, hashes };
}

/** Cosine of two stored (int8) forms: what the store ranks by. */
function cosine(a: Buffer, b: Buffer): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a.readInt8(i);
    const y = b.readInt8(i);
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return dot / Math.sqrt(na * nb);
}

async function put(store: Store, hashes: string[], vectors: number[][]): Promise<void> {
  await store.vectors.put(
    SPACE,
    hashes.map((hash, i) => ({ hash, vector: store.vectors.prepare(vectors[i]!) })),
  );
}

/** The folder's passages nearest to `query`, as passage keys. */
const nearest = async (store: Store, dir: string, query: number[], limit: number) =>
  (await store.vectors.nearest(dir, SPACE, query, limit)).map((h) => `${h.slug}#${h.ordinal}`);

describe('SQLite passage vectors', () => {
  it('finds the true nearest passages of 3,000 through the sign-bit scan', async () => {
    const { store, dir, hashes } = await indexed(tempDb(), 300);
    expect(hashes).toHaveLength(3000);
    if (await store.vectors.unavailable()) return;
    const vectorsOf = clustered(DIMS, random(7), TOPICS);
    const vectors = vectorsOf(hashes.length);
    await put(store, hashes, vectors);
    expect(await store.vectors.countMissing(dir, SPACE)).toBe(0);
    const stored = vectors.map((v) => compact(v).int8);
    // Where each hash's passage is, as the store names a hit: its document and ordinal (ids run in order).
    const spans = await store.vectors.missing(dir, 'another:model@8', 1_000_000);
    const first = new Map<number, number>();
    for (const p of spans) first.set(p.documentId, Math.min(p.id, first.get(p.documentId) ?? p.id));
    const place = new Map(spans.map((p) => [p.hash, `${p.documentId}:${p.id - first.get(p.documentId)!}`]));
    let found = 0;
    let asked = 0;
    for (let q = 0; q < 20; q++) {
      const query = vectorsOf(1)[0]!;
      const mine = compact(query).int8;
      const truth = stored
        .map((v, i) => ({ hash: hashes[i]!, s: cosine(v, mine) }))
        .sort((a, b) => b.s - a.s)
        .slice(0, 10);
      const got = await store.vectors.nearest(dir, SPACE, query, 10);
      expect(got).toHaveLength(10);
      // Similarities come back best first, and are the int8 cosines.
      for (let k = 1; k < got.length; k++)
        expect(got[k]!.similarity).toBeLessThanOrEqual(got[k - 1]!.similarity);
      expect(got[0]!.similarity).toBeCloseTo(truth[0]!.s, 4);
      const keys = new Set(got.map((h) => `${h.documentId}:${h.ordinal}`));
      for (const t of truth) {
        asked++;
        if (keys.has(place.get(t.hash)!)) found++;
      }
    }
    expect(found / asked).toBeGreaterThanOrEqual(0.95);
  });

  it('leaves pruned vectors out of the scan, and searches what is left', async () => {
    const { store, dir, hashes } = await indexed(tempDb(), 20);
    if (await store.vectors.unavailable()) return;
    const vectors = clustered(DIMS, random(3), TOPICS)(hashes.length);
    await put(store, hashes, vectors);
    // The first document changes: its passages' vectors are no longer anyone's.
    writeFileSync(join(dir, 'doc-0.md'), '# Document 0\n\nNothing of what it said.\n');
    await refreshIndex(store, dir);
    expect(await store.vectors.prune()).toBe(10);
    const hits = await nearest(store, dir, vectors[0]!, 5);
    expect(hits).toHaveLength(5);
    expect(hits.some((k) => k.startsWith('doc-0#'))).toBe(false);
    // The passage of another document asked for by its own vector is still first.
    expect(await nearest(store, dir, vectors[57]!, 1)).toEqual([
      (await nearest(store, dir, vectors[57]!, 3))[0],
    ]);
    const db = (store as unknown as { db: Database.Database }).db;
    const covered = db.prepare('SELECT sum(length(ids)) / 4 FROM vector_chunks').pluck().get();
    expect(covered).toBe(db.prepare('SELECT count(*) FROM passage_vectors').pluck().get());
  });

  it('keeps the vectors of an older database through the upgrade, and finds the same passages', async () => {
    const path = tempDb();
    const { store, dir, hashes } = await indexed(path, 30);
    if (await store.vectors.unavailable()) return;
    const vectorsOf = clustered(DIMS, random(11), TOPICS);
    await put(store, hashes, vectorsOf(hashes.length));
    const queries = vectorsOf(5);
    const before = [];
    for (const q of queries) before.push(await nearest(store, dir, q, 5));
    await store.close();
    stores.length = 0;
    // The vectors as the earlier schema kept them: model names in every row, chunks of 16-byte hashes
    // and one sign bit a model dimension (which the upgrade drops), the step not yet recorded.
    const db = new Database(path);
    db.exec(`
      CREATE TABLE old_vectors (id INTEGER PRIMARY KEY, model TEXT NOT NULL, hash BLOB NOT NULL, vector BLOB NOT NULL, UNIQUE (model, hash));
      INSERT INTO old_vectors SELECT v.id, m.name, v.hash, v.vector FROM passage_vectors v JOIN vector_models m ON m.id = v.model_id;
      DROP TABLE passage_vectors; ALTER TABLE old_vectors RENAME TO passage_vectors;
      DROP TABLE vector_chunks;
      CREATE TABLE vector_chunks (id INTEGER PRIMARY KEY, model TEXT NOT NULL, hashes BLOB NOT NULL, bits BLOB NOT NULL);
      INSERT INTO vector_chunks (model, hashes, bits) SELECT model, hash, zeroblob(${DIMS / 8}) FROM passage_vectors;
      DROP TABLE vector_models;
      DELETE FROM schema_migrations WHERE name = '019_vector_models';
    `);
    db.pragma(`user_version = ${(db.pragma('user_version', { simple: true }) as number) - 1}`);
    db.close();
    const upgraded = await openStore(path);
    stores.push(upgraded);
    expect(await upgraded.vectors.unavailable()).toBeUndefined();
    expect(await upgraded.vectors.countMissing(dir, SPACE)).toBe(0);
    for (const [i, q] of queries.entries()) expect(await nearest(upgraded, dir, q, 5)).toEqual(before[i]);
    // The chunks were made again from the kept vectors, once, and written.
    const after = (upgraded as unknown as { db: Database.Database }).db;
    expect(after.prepare('SELECT sum(length(ids)) / 4 FROM vector_chunks').pluck().get()).toBe(hashes.length);
  });
});
