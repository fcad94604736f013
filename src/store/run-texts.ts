import { createHash } from 'node:crypto';
import { deflateSync, inflateSync } from 'node:zlib';
import type { Db } from './open.js';

// The source texts of saved research runs: compressed, each distinct text once (keyed by its hash), so
// twenty runs over the same policy keep one copy of it. Callers write inside their own transaction.

export interface RunText {
  /** The source's number in the run. */
  n: number;
  text: string;
}

/** A text's key wherever texts are stored once: the SHA-256 of its UTF-8, hex. */
export const textHash = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** A text as stored: UTF-8, deflated with zlib. */
export const deflateText = (text: string): Buffer => deflateSync(Buffer.from(text, 'utf8'));

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

/** A stored text from its compressed body. */
export const inflateText = (body: Buffer): string => inflateSync(body).toString('utf8');

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
