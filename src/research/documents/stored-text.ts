import { constants, deflateRawSync } from 'node:zlib';

// A document's text as the index keeps it: zlib-compressed (a third of its size for prose), in blocks cut
// at passage starts, so that one passage is read by inflating one block (a few hundred microseconds at
// most) and never the whole document. Blocks partition the text: each runs to the next one's start.
// The store keeps and reads them (IndexStore.text, spanReader).

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
