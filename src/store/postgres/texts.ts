import { deflateText, textHash } from '../texts.js';
import { type Client, rows } from './db.js';

// Texts stored once by their SHA-256, zlib-compressed (../texts.ts, as on SQLite, so a copied row is the
// same bytes).

/** Stores a run's source text unless it is stored already; its hash. */
export async function storeText(c: Client, text: string): Promise<string> {
  const hash = textHash(text);
  // Looked up first: compressing a text that is stored already would be wasted work.
  const [found] = await rows(c, 'SELECT 1 FROM source_texts WHERE hash = $1', [hash]);
  if (!found)
    await c.query(
      'INSERT INTO source_texts (hash, chars, body) VALUES ($1, $2, $3) ON CONFLICT (hash) DO NOTHING',
      [hash, text.length, deflateText(text)],
    );
  return hash;
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
