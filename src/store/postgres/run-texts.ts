import { deflateText, textHash } from '../texts.js';
import { type Client, rows } from './db.js';

// Texts stored once by their SHA-256, zlib-compressed (../texts.ts, as on SQLite, so a copied row is the
// same bytes).

/**
 * A run's texts linked as run_texts (n → text), each text stored unless it is already: two statements
 * whatever their number, and one when every text is stored (the texts are compressed only then).
 */
export async function linkRunTexts(
  c: Client,
  id: number,
  texts: { n: number; text: string }[],
): Promise<void> {
  if (texts.length === 0) return;
  const hashes = texts.map((t) => textHash(t.text));
  const link = `INSERT INTO run_texts (run_id, n, hash) SELECT $1::bigint, t.n, t.hash
    FROM unnest($2::int[], $3::text[]) AS t(n, hash) WHERE EXISTS (SELECT 1 FROM source_texts s WHERE s.hash = t.hash)
    ON CONFLICT (run_id, n) DO UPDATE SET hash = excluded.hash RETURNING n`;
  const linked = new Set(
    (await rows<{ n: number }>(c, link, [id, texts.map((t) => t.n), hashes])).map((r) => r.n),
  );
  const rest = texts.flatMap((t, i) => (linked.has(t.n) ? [] : [{ n: t.n, hash: hashes[i]! }]));
  if (rest.length === 0) return;
  const bodies = new Map(texts.map((t, i) => [hashes[i]!, t.text]));
  const missing = [...new Set(rest.map((t) => t.hash))];
  await c.query(
    `WITH stored AS (
       INSERT INTO source_texts (hash, chars, body) SELECT * FROM unnest($4::text[], $5::int[], $6::bytea[])
       ON CONFLICT (hash) DO NOTHING
     )
     INSERT INTO run_texts (run_id, n, hash) SELECT $1::bigint, t.n, t.hash FROM unnest($2::int[], $3::text[]) AS t(n, hash)
     ON CONFLICT (run_id, n) DO UPDATE SET hash = excluded.hash`,
    [
      id,
      rest.map((t) => t.n),
      rest.map((t) => t.hash),
      missing,
      missing.map((h) => bodies.get(h)!.length),
      missing.map((h) => deflateText(bodies.get(h)!)),
    ],
  );
}

/**
 * Drops a run's progress (run_progress, run_plans, run_searches, run_sources) and the texts that only it
 * used, in one statement. Its own run_texts keep theirs. (One statement sees the rows as they were before
 * it: a text is dropped when no other run's sources and no run's texts use it.)
 */
export async function dropProgressAndTexts(c: Client, id: number): Promise<void> {
  await c.query(
    `WITH used AS (SELECT hash FROM run_sources WHERE run_id = $1),
       progress AS (DELETE FROM run_progress WHERE run_id = $1),
       plans AS (DELETE FROM run_plans WHERE run_id = $1),
       searches AS (DELETE FROM run_searches WHERE run_id = $1),
       sources AS (DELETE FROM run_sources WHERE run_id = $1)
     DELETE FROM source_texts t WHERE t.hash IN (SELECT hash FROM used)
       AND NOT EXISTS (SELECT 1 FROM run_texts r WHERE r.hash = t.hash)
       AND NOT EXISTS (SELECT 1 FROM run_sources s WHERE s.hash = t.hash AND s.run_id <> $1)`,
    [id],
  );
}

/** Deletes these texts where no saved run and no run in progress uses them any more. */
export async function dropUnusedTexts(c: Client, hashes: string[]): Promise<void> {
  if (hashes.length === 0) return;
  await c.query(
    `DELETE FROM source_texts t WHERE t.hash = ANY($1)
       AND NOT EXISTS (SELECT 1 FROM run_texts r WHERE r.hash = t.hash)
       AND NOT EXISTS (SELECT 1 FROM run_sources s WHERE s.hash = t.hash)`,
    [hashes],
  );
}

/** The hashes a run's texts and progress use (to drop those left unused once it is deleted). */
export async function hashesOf(c: Client, runId: number): Promise<string[]> {
  const found = await rows<{ hash: string }>(
    c,
    'SELECT hash FROM run_texts WHERE run_id = $1 UNION SELECT hash FROM run_sources WHERE run_id = $1',
    [runId],
  );
  return found.map((r) => r.hash);
}
