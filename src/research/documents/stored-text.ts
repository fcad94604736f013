import { constants, deflateRawSync, inflateRawSync } from 'node:zlib';
import type { Db } from '../../store/open.js';

// A document's text as the index keeps it: zlib-compressed (a third of its size for prose), in blocks cut
// at passage starts, so that one passage is read by inflating one block (a few hundred microseconds at
// most) and never the whole document. Blocks partition the text: each runs to the next one's start.

/** A block ends at the first passage start at least this many characters after its own start. */
const BLOCK_CHARS = 16_384;
/** Level 2 compresses within a few percent of the default level at twice its speed. */
const LEVEL = 2;
/**
 * A shorter text is stored as it is: each compression costs a zlib stream's setup (about 20 µs, more
 * than reading a small file) and saves little on a few sentences.
 */
const MIN_COMPRESSED_CHARS = 2048;

export interface TextBlock {
  /** Where the block starts in the text (JavaScript string index). */
  start: number;
  /** Raw deflate of the UTF-8 text, or the text itself when short. */
  data: Buffer | string;
}

/** The text as compressed blocks, each starting at 0 or at one of `starts` (ascending passage starts). */
export function textBlocks(text: string, starts: number[]): TextBlock[] {
  if (text.length < MIN_COMPRESSED_CHARS) return [{ start: 0, data: text }];
  const cuts = [0];
  for (const start of starts) if (start - cuts.at(-1)! >= BLOCK_CHARS) cuts.push(start);
  return cuts.map((start, i) => ({
    start,
    data: deflateRawSync(text.slice(start, cuts[i + 1] ?? text.length), {
      level: LEVEL,
      strategy: constants.Z_DEFAULT_STRATEGY,
    }),
  }));
}

const inflate = (data: Buffer | string): string =>
  typeof data === 'string' ? data : inflateRawSync(data).toString('utf8');

/** The whole text of document `documentId` ('' when it has none stored). */
export function readText(db: Db, documentId: number): string {
  const blocks = db
    .prepare('SELECT data FROM document_blocks WHERE document_id = ? ORDER BY start_offset')
    .pluck()
    .all(documentId) as (Buffer | string)[];
  return blocks.map(inflate).join('');
}

/**
 * Reads spans of stored texts, inflating only the blocks a span covers, and each block once however many
 * spans fall in it. One reader per search or source: it keeps what it has inflated.
 */
export function spanReader(db: Db): (documentId: number, start: number, end: number) => string {
  const blocksOf = db.prepare(
    'SELECT id, start_offset AS start FROM document_blocks WHERE document_id = ? ORDER BY start_offset',
  );
  const dataOf = db.prepare('SELECT data FROM document_blocks WHERE id = ?').pluck();
  const blocks = new Map<number, { id: number; start: number }[]>();
  const inflated = new Map<number, string>();
  return (documentId, start, end) => {
    let list = blocks.get(documentId);
    if (!list) {
      list = blocksOf.all(documentId) as { id: number; start: number }[];
      blocks.set(documentId, list);
    }
    let text = '';
    for (const [i, block] of list.entries()) {
      const next = list[i + 1]?.start ?? Number.POSITIVE_INFINITY;
      if (next <= start || block.start >= end) continue;
      let whole = inflated.get(block.id);
      if (whole === undefined) {
        whole = inflate(dataOf.get(block.id) as Buffer | string);
        inflated.set(block.id, whole);
      }
      text += whole.slice(Math.max(0, start - block.start), end - block.start);
    }
    return text;
  };
}
