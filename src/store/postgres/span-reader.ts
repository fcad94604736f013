import { inflateRawSync } from 'node:zlib';
import { KEPT_BLOCKS, KEPT_LISTS, recent } from '../recent.js';
import type { Db } from './db.js';

// Spans of stored texts read from PostgreSQL in as few round trips as a caller's reads allow: the reads
// a caller starts together (Promise.all over a search's hits, an embedding round's passages) are
// gathered until the event loop turns, then answered by one statement for the documents' block lists
// and one for the blocks' data, instead of two round trips a span.

/** A stored block's text: raw deflate, or the text itself when it was too short to compress. */
export const inflate = (data: Buffer, deflated: boolean): string =>
  (deflated ? inflateRawSync(data) : data).toString('utf8');

/** A loader of values by key that asks `load` once for all keys asked for before the loop turns. */
function gathered<K, V>(load: (keys: K[]) => Promise<Map<K, V>>, missing: V): (key: K) => Promise<V> {
  let waiting: { key: K; resolve: (v: V) => void; reject: (e: unknown) => void }[] = [];
  const flush = () => {
    const batch = waiting;
    waiting = [];
    load([...new Set(batch.map((w) => w.key))]).then(
      (found) => {
        for (const w of batch) w.resolve(found.get(w.key) ?? missing);
      },
      (error) => {
        for (const w of batch) w.reject(error);
      },
    );
  };
  return (key) =>
    new Promise<V>((resolve, reject) => {
      if (waiting.length === 0) setImmediate(flush);
      waiting.push({ key, resolve, reject });
    });
}

/** Reads spans of stored texts; each block read and inflated once while it is among the last read. */
export function pgSpanReader(db: Db): (documentId: number, start: number, end: number) => Promise<string> {
  const lists = new Map<number, Promise<{ id: number; start: number }[]>>();
  const texts = new Map<number, Promise<string>>();
  const listOf = gathered(async (documents: number[]) => {
    const found = new Map<number, { id: number; start: number }[]>();
    const blocks = await db.query<{ document: number; id: number; start: number }>(
      `SELECT document_id AS document, id, start_offset AS start FROM document_blocks
       WHERE document_id = ANY ($1::bigint[]) ORDER BY document_id, start_offset`,
      [documents],
    );
    for (const { document, id, start } of blocks) {
      if (!found.has(document)) found.set(document, []);
      found.get(document)!.push({ id, start });
    }
    return found;
  }, []);
  const textOf = gathered(async (ids: number[]) => {
    const found = new Map<number, string>();
    const blocks = await db.query<{ id: number; data: Buffer; deflated: boolean }>(
      'SELECT id, data, deflated FROM document_blocks WHERE id = ANY ($1::bigint[])',
      [ids],
    );
    for (const b of blocks) found.set(b.id, inflate(b.data, b.deflated));
    return found;
  }, '');
  return async (documentId, start, end) => {
    const blocks = await recent(lists, documentId, KEPT_LISTS, () => listOf(documentId));
    const parts = blocks.flatMap((block, i) => {
      const next = blocks[i + 1]?.start ?? Number.POSITIVE_INFINITY;
      if (next <= start || block.start >= end) return [];
      const text = recent(texts, block.id, KEPT_BLOCKS, () => textOf(block.id));
      return [text.then((whole) => whole.slice(Math.max(0, start - block.start), end - block.start))];
    });
    return (await Promise.all(parts)).join('');
  };
}
