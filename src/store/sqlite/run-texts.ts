import { deflateText, inflateText, textHash } from '../texts.js';
import type { RunText } from '../types.js';
import type { Db } from './open.js';

// The source texts of saved research runs: compressed, each distinct text once (keyed by its hash), so
// twenty runs over the same policy keep one copy of it. Callers write inside their own transaction.

/** Stores a text unless it is stored already; returns its hash. */
export function storeText(db: Db, text: string): string {
  const hash = textHash(text);
  // Looked up first: compressing a text that is stored already would be wasted work.
  if (!db.prepare('SELECT 1 FROM source_texts WHERE hash = ?').get(hash))
    db.prepare('INSERT INTO source_texts (hash, chars, body) VALUES (?, ?, ?)').run(
      hash,
      text.length,
      deflateText(text),
    );
  return hash;
}

/** Links a run to its sources' texts, storing each text that is not stored yet. */
export function saveRunTexts(db: Db, runId: number, texts: RunText[]): void {
  const link = db.prepare('INSERT OR REPLACE INTO run_texts (run_id, n, hash) VALUES (?, ?, ?)');
  for (const { n, text } of texts) link.run(runId, n, storeText(db, text));
}

/** A saved run's source texts by number; empty for a run saved before texts were kept. */
export function runTexts(db: Db, runId: number): Map<number, string> {
  const rows = db
    .prepare(
      `SELECT t.n AS n, s.body AS body FROM run_texts t JOIN source_texts s ON s.hash = t.hash
       WHERE t.run_id = ? ORDER BY t.n`,
    )
    .all(runId) as { n: number; body: Buffer }[];
  return new Map(rows.map((r) => [r.n, inflateText(r.body)]));
}
