import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refreshIndex } from '../../../src/research/documents/refresh.js';
import type { PostgresStore } from '../../../src/store/postgres/store.js';
import { compact } from '../../../src/store/vectors.js';
import { openTestStore, startTestDatabase, type TestDatabase } from '../../support/pg.js';
import { dropRoles, makeTeamRoles, member } from '../../support/pg-roles.js';
import { clustered, random } from '../../support/vectors.js';

// Passage vectors on PostgreSQL (pgvector; PGlite ships it, a real server may not have it, and then
// these tests have nothing to check): every model's vectors folded to 512 dimensions, candidates found
// by their sign bits in a scan of small rows, a model's vectors found among another's, and vectors kept by
// an earlier version (each model at its own size) folded in place by `agent db migrate`, so that the
// same passages are found without embedding anything again.

const LARGE = 'test:large@1536';
const SMALL = 'test:small@384';
const TOPICS = { topics: 12, noise: 1 };

/** Cosine of two vectors' stored (int8) forms, worked out here: what the store must rank by. */
function cosine(a: Int8Array, b: Int8Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  a.forEach((x, i) => {
    dot += x * b[i]!;
    na += x * x;
    nb += b[i]! * b[i]!;
  });
  return dot / Math.sqrt(na * nb);
}

const int8 = (v: number[]) => {
  const { int8: b } = compact(v);
  return new Int8Array(b.buffer, b.byteOffset, b.length);
};

let db: TestDatabase;
let store: PostgresStore;
let dir: string;
let hashes: string[];
let usable = false;

beforeAll(async () => {
  db = await startTestDatabase({ vector: true });
  store = await openTestStore(db);
  dir = mkdtempSync(join(tmpdir(), 'agent-pg-vectors-'));
  for (let f = 0; f < 40; f++) {
    const sections = Array.from(
      { length: 10 },
      (_, s) => `## Part ${s}\n\nFile ${f} section ${s} says ${f * 10 + s}.`,
    );
    writeFileSync(join(dir, `doc-${f}.md`), `# Document ${f}\n\n${sections.join('\n\n')}\n`);
  }
  await refreshIndex(store, dir);
  // Asked first: without pgvector there is no vectors table to ask what is missing from.
  usable = (await store.vectors.unavailable()) === undefined;
  hashes = usable ? [...new Set((await store.vectors.missing(dir, LARGE, 10_000)).map((p) => p.hash))] : [];
});
afterAll(async () => {
  await store?.close();
  await db?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const put = (s: PostgresStore, model: string, keys: string[], vectors: number[][]) =>
  s.vectors.put(
    model,
    keys.map((hash, i) => ({ hash, vector: s.vectors.prepare(vectors[i]!) })),
  );

const keysOf = async (s: PostgresStore, model: string, query: number[], limit: number) =>
  (await s.vectors.nearest(dir, model, query, limit)).map((h) => `${h.slug}#${h.ordinal}`);

/** A store of this version says the vectors need `agent db migrate`; migrated, a store that works. */
async function migrated(): Promise<PostgresStore> {
  const stale = await openTestStore(db);
  expect(await stale.vectors.unavailable()).toMatch(
    /kept by an earlier version: its owner runs agent db migrate/,
  );
  await stale.close();
  await store.migrate();
  const after = await openTestStore(db);
  expect(await after.vectors.unavailable()).toBeUndefined();
  return after;
}

describe('passage vectors on PostgreSQL', () => {
  const large = clustered(1536, random(5), TOPICS);
  const small = clustered(384, random(6), TOPICS);
  let largeVectors: number[][];
  let smallVectors: number[][];

  it('finds the nearest passages of a model by a scan of small rows, and another model’s among them', async () => {
    if (!usable) return;
    expect(hashes).toHaveLength(400);
    largeVectors = large(hashes.length);
    smallVectors = small(20);
    await put(store, LARGE, hashes, largeVectors);
    // A second model has vectors for a few passages only.
    await put(store, SMALL, hashes.slice(0, 20), smallVectors);
    // The scan reads rows of signs only: a few hundred bytes each, not the vectors' kilobyte.
    const [size] = await db.sql<{ bytes: number; rows: number }>(
      "SELECT pg_relation_size('passage_vector_signs')::int AS bytes, (SELECT count(*)::int FROM passage_vector_signs) AS rows",
    );
    expect(size!.rows).toBe(420);
    expect(size!.bytes / size!.rows).toBeLessThan(300);
    const folded = largeVectors.map(int8);
    let found = 0;
    for (const query of large(10)) {
      const q = int8(query);
      const truth = folded
        .map((v, i) => ({ i, s: cosine(v, q) }))
        .sort((a, b) => b.s - a.s)
        .slice(0, 10);
      const hits = await store.vectors.nearest(dir, LARGE, query, 10);
      expect(hits).toHaveLength(10);
      const got = new Set(hits.map((h) => h.similarity.toFixed(2)));
      found += truth.filter((t) => got.has(t.s.toFixed(2))).length;
    }
    expect(found / 100).toBeGreaterThanOrEqual(0.9);
    const few = await store.vectors.nearest(dir, SMALL, small(1)[0]!, 5);
    expect(few).toHaveLength(5);
    expect(few.every((h) => h.documentId !== undefined && h.ordinal < 10)).toBe(true);
  });

  it('lets a member (agent_member, nothing more) keep, search and forget vectors', async () => {
    if (!usable) return;
    await makeTeamRoles(db);
    await store.migrate();
    const alice = await member(db, 'vectors_alice');
    try {
      const own = large(30);
      const query = own[7]!;
      await alice.as(async (s) => {
        expect(await s.vectors.unavailable()).toBeUndefined();
        await put(s, 'test:member@1536', hashes.slice(0, 30), own);
        const hits = await s.vectors.nearest(dir, 'test:member@1536', query, 3);
        expect(hits).toHaveLength(3);
        expect(hits[0]!.similarity).toBeGreaterThan(0.99);
        expect(await s.vectors.prune()).toBe(0);
      });
    } finally {
      await alice.close();
      await dropRoles(db, ['vectors_alice']);
    }
  });

  it('folds the vectors an earlier version kept at each model’s size, in place, when migrated', async () => {
    if (!usable) return;
    // Fewer vectors than above: folding in SQL is slow on PGlite.
    await db.sql('DELETE FROM passage_vectors WHERE model = $1 AND NOT hash = ANY ($2::bytea[])', [
      LARGE,
      hashes.slice(0, 60).map((h) => Buffer.from(h, 'hex')),
    ]);
    const kept = { large: largeVectors.slice(0, 60), hashes: hashes.slice(0, 60) };
    const queries = [...large(3)];
    const before = [];
    for (const q of queries) before.push(await keysOf(store, LARGE, q, 5));
    const smallBefore = await keysOf(store, SMALL, smallVectors[3]!, 3);
    // The table as the earlier version left it: halfvec of the model's own size, unit length, no signs.
    const unit = (v: number[]) => {
      const n = Math.hypot(...v);
      return `[${v.map((x) => (x / n).toPrecision(5)).join(',')}]`;
    };
    await db.sql('DROP TABLE passage_vector_signs, passage_vectors');
    await db.sql(
      'CREATE TABLE passage_vectors (model text NOT NULL, hash bytea NOT NULL, vector halfvec NOT NULL, PRIMARY KEY (model, hash))',
    );
    await db.sql(
      `INSERT INTO passage_vectors SELECT m, decode(h, 'hex'), v::halfvec
       FROM unnest($1::text[], $2::text[], $3::text[]) AS u (m, h, v)`,
      [
        [...kept.hashes.map(() => LARGE), ...hashes.slice(0, 20).map(() => SMALL)],
        [...kept.hashes, ...hashes.slice(0, 20)],
        [...kept.large.map(unit), ...smallVectors.map(unit)],
      ],
    );
    const after = await migrated();
    try {
      expect(await after.vectors.countMissing(dir, LARGE)).toBe(hashes.length - 60);
      for (const [i, q] of queries.entries()) expect(await keysOf(after, LARGE, q, 5)).toEqual(before[i]);
      expect(await keysOf(after, SMALL, smallVectors[3]!, 3)).toEqual(smallBefore);
      const left = await db.sql("SELECT 1 FROM pg_class WHERE relname = 'passage_vectors_unsized'");
      expect(left).toEqual([]);
    } finally {
      await after.close();
    }
  });

  it('turns the halfvec(512) vectors the previous version kept into their int8 bytes when migrated', async () => {
    if (!usable) return;
    const queries = [...large(3)];
    const before = [];
    for (const q of queries) before.push(await keysOf(store, LARGE, q, 5));
    expect(before[0]).toHaveLength(5);
    // Vectors this version keeps (its signs made here, not by the server), to be checked below.
    await put(store, 'test:fresh@1536', hashes.slice(0, 200), large(200));
    // The table as the previous version kept it: the same int8 components, in a halfvec(512).
    await db.sql('ALTER TABLE passage_vectors RENAME TO passage_vectors_now');
    await db.sql(
      'CREATE TABLE passage_vectors (model text NOT NULL, hash bytea NOT NULL, vector halfvec(512) NOT NULL, PRIMARY KEY (model, hash))',
    );
    await db.sql(
      `INSERT INTO passage_vectors SELECT model, hash, (
         SELECT array_agg((get_byte(vector, i) - CASE WHEN get_byte(vector, i) > 127 THEN 256 ELSE 0 END)::real
           ORDER BY i)
         FROM generate_series(0, octet_length(vector) - 1) AS i)::halfvec(512)
       FROM passage_vectors_now`,
    );
    await db.sql('DROP TABLE passage_vectors_now');
    // The signs agent writes are pgvector's own binary_quantize of the vector, bit for bit.
    const [signs] = await db.sql<{ rows: number; same: number }>(
      `SELECT count(*)::int AS rows, count(*) FILTER (WHERE s.bits = binary_quantize(v.vector))::int AS same
       FROM passage_vectors v JOIN passage_vector_signs s USING (model, hash) WHERE model = 'test:fresh@1536'`,
    );
    expect(signs!.rows).toBe(200);
    expect(signs!.same).toBe(signs!.rows);
    const after = await migrated();
    try {
      const [type] = await db.sql<{ t: string }>(
        "SELECT format_type(atttypid, atttypmod) AS t FROM pg_attribute WHERE attrelid = 'passage_vectors'::regclass AND attname = 'vector'",
      );
      expect(type?.t).toBe('bytea');
      for (const [i, q] of queries.entries()) expect(await keysOf(after, LARGE, q, 5)).toEqual(before[i]);
    } finally {
      await after.close();
    }
  });
});
