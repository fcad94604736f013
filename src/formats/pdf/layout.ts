import type { TextItem } from 'pdfjs-dist/types/src/display/api.js';
import { monoText } from './mono.js';

// A page's text items in reading order. pdf.js gives items in drawing order, which is often not the
// order of reading (page numbers of a table of contents drawn last, running headers drawn after the
// body), so items are placed by position: rows by baseline, left to right, and on a page set in two
// columns the left column before the right one.

/** The part of a pdf.js text item this module reads (marked-content items have no `str`). */
export type TextPiece = Pick<TextItem, 'str' | 'dir' | 'transform' | 'width' | 'height' | 'hasEOL'> & {
  fontName?: string;
};

export interface Piece {
  str: string;
  x: number;
  y: number;
  endX: number;
  size: number;
  /** pdf.js's name for the font (the same for a font on every page of a document). */
  font?: string;
  /** Set letter-spaced: its word spaces are as wide as the tracking makes them. */
  spaced?: boolean;
  /** Set in a monospaced font (pdf.js's style says so). */
  mono?: boolean;
}

/** A line of a page in reading order; `size` is the font size of most of it, for telling headings. */
export interface Line {
  /** Parts of a row set apart by a wide gap (table cells, a label and its value) are joined by a tab. */
  text: string;
  y: number;
  /** Left edge. */
  x: number;
  size: number;
  /** A paragraph (or new column) starts here: a blank line goes before it. */
  paragraph: boolean;
  /** With two or more tab-separated parts: the left and right edge of each, in turn. */
  cells?: number[];
  /** The font the whole line is set in, when it is one font. */
  font?: string;
  /** Set in a bold face throughout (known only when the page's fonts were asked for). */
  bold?: boolean;
  /** Rows of cells, for a line that stands for a table found on the page. */
  table?: string[][];
  /**
   * Set in monospaced fonts throughout: the width of one character. Its text then keeps the spaces the
   * columns say (code, a terminal's output), and its indent can be told from its x.
   */
  mono?: number;
}

export interface Segment {
  pieces: Piece[];
  x: number;
  endX: number;
  y: number;
  size: number;
}

/** A row's pieces further apart than this many font sizes are separate segments (columns, cells). */
const SEGMENT_GAP = 1;

// "s h e" for a letter-spaced word: pdf.js writes the tracking as spaces between single characters.
const SPACED_LETTERS = /^(?:\S )+\S$/;

/** A letter-spaced item's words without the tracking spaces; runs of 2+ spaces stay word breaks. */
function unspace(str: string): string {
  if (!str.includes(' ')) return str;
  return str
    .split(/ {2,}/)
    .map((part) => (part.length >= 5 && SPACED_LETTERS.test(part) ? part.replace(/ /g, '') : part))
    .join(' ');
}

export function piecesOf(items: TextPiece[]): Piece[] {
  const pieces: Piece[] = [];
  for (const item of items) {
    const str = item.str;
    if (!str?.trim()) continue;
    const t = item.transform;
    const size = item.height || Math.hypot(t[2] ?? 0, t[3] ?? 0) || 1;
    const x = t[4] ?? 0;
    const text = unspace(str);
    const piece: Piece = { str: text, x, y: t[5] ?? 0, endX: x + Math.max(item.width, 0), size };
    if (text.length < str.length) piece.spaced = true;
    if (item.fontName) piece.font = item.fontName;
    pieces.push(piece);
  }
  return pieces;
}

/** Pieces grouped into rows by baseline (top to bottom), each row's pieces split into segments. */
export function rowsOf(pieces: Piece[], gapSizes = SEGMENT_GAP): Segment[][] {
  pieces.sort((a, b) => b.y - a.y || a.x - b.x);
  const rows: Piece[][] = [];
  let row: Piece[] = [];
  let rowY = 0;
  let rowSize = 0;
  for (const p of pieces) {
    if (row.length && rowY - p.y <= Math.max(rowSize, p.size) / 2) {
      row.push(p);
      rowSize = Math.max(rowSize, p.size);
      continue;
    }
    if (row.length) rows.push(row);
    row = [p];
    rowY = p.y;
    rowSize = p.size;
  }
  if (row.length) rows.push(row);
  return rows.map((r) => {
    r.sort((a, b) => a.x - b.x);
    // In a row set wholly in a monospaced font, spaces are characters: a line of code and its comment
    // far to the right are one line, not two columns or two cells.
    const mono = r.every((p) => p.mono);
    const segments: Segment[] = [];
    let prev: Piece | undefined;
    for (const p of r) {
      // Bold faked by drawing the same text twice, a hair apart: read once.
      if (prev && prev.str === p.str && Math.abs(p.x - prev.x) < p.size * 0.3) continue;
      prev = p;
      const last = segments.at(-1);
      // Between letter-spaced words the gap is a word space plus the tracking: twice as wide a gap.
      const gap = gapSizes * (p.spaced || last?.pieces.at(-1)?.spaced ? 2 : 1);
      if (last && (mono || p.x - last.endX <= gap * Math.max(p.size, last.size))) {
        last.pieces.push(p);
        last.endX = Math.max(last.endX, p.endX);
        last.size = Math.max(last.size, p.size);
      } else segments.push({ pieces: [p], x: p.x, endX: p.endX, y: r[0]!.y, size: p.size });
    }
    return segments;
  });
}

const NUMERIC = /[\d.,±%]/;
const SPACE = /\s/;

/** The text of a segment: a space where the gap between pieces is visible and neither side has one. */
export function segmentText(seg: Segment): string {
  let out = '';
  // The last character written, kept aside: reading it back from `out` would flatten the string each time.
  let last = '';
  let endX = Number.NEGATIVE_INFINITY;
  for (const p of seg.pieces) {
    if (last) {
      const gap = p.x - endX;
      // Inside a number ("0.8±0.2") only a wide gap is a space: kerning around digits is not.
      const numeric = NUMERIC.test(last) && NUMERIC.test(p.str[0]!);
      const min = p.size * (numeric ? 0.3 : 0.15);
      if (gap > min && !SPACE.test(last) && !SPACE.test(p.str[0]!)) out += ' ';
    }
    out += p.str;
    last = p.str[p.str.length - 1]!;
    endX = Math.max(endX, p.endX);
  }
  return out.replace(/\s+/g, ' ').trim();
}

/** Extent of the page's text. */
function extent(rows: Segment[][]): { minX: number; width: number } {
  let minX = Number.POSITIVE_INFINITY;
  let maxX = Number.NEGATIVE_INFINITY;
  for (const row of rows)
    for (const s of row) {
      minX = Math.min(minX, s.x);
      maxX = Math.max(maxX, s.endX);
    }
  return { minX, width: maxX - minX };
}

/**
 * The x of the gutter of a page set in two columns, or undefined. The gutter is the strip in the middle
 * half of the page that the fewest rows cross; rows that cross it (a title, an abstract, a wide figure)
 * may be any share of the page, as on a paper's first page. It counts as a gutter only when the rows
 * that do not cross it hold text side by side, with lines of text (wide ones) on at least one side and
 * as wide an extent on the other, so a page that is one table is not taken apart.
 */
function findGutter(rows: Segment[][]): number | undefined {
  if (rows.length < 4) return undefined;
  const { minX, width } = extent(rows);
  if (width < 100) return undefined;
  const BUCKET = 2;
  const cover = new Uint32Array(Math.ceil(width / BUCKET) + 1);
  for (const row of rows)
    for (const s of row)
      for (let b = Math.floor((s.x - minX) / BUCKET); b <= Math.floor((s.endX - minX) / BUCKET); b++)
        cover[b]!++;
  const from = Math.floor((width * 0.25) / BUCKET);
  const to = Math.ceil((width * 0.75) / BUCKET);
  let least = Number.POSITIVE_INFINITY;
  for (let b = from; b <= to; b++) least = Math.min(least, cover[b]!);
  // The middle of the longest run of least-crossed strips.
  let [bestStart, bestLength, start] = [from, 0, -1];
  for (let b = from; b <= to + 1; b++) {
    if (b <= to && cover[b] === least) {
      if (start < 0) start = b;
    } else if (start >= 0) {
      if (b - start > bestLength) [bestStart, bestLength] = [start, b - start];
      start = -1;
    }
  }
  const gutter = minX + (bestStart + bestLength / 2) * BUCKET;
  // On each row that does not cross, each side's widest segment and its extent. A column of text has
  // wide lines among its short ones (table cells, an equation's pieces); a table's columns do not, even
  // when a row of them spans as wide. One side of text suffices beside something as wide but in pieces
  // (a figure's labels).
  const sides = {
    left: { widest: [] as number[], extent: [] as number[] },
    right: { widest: [] as number[], extent: [] as number[] },
  };
  // Columns sit side by side: rows with text on both sides, or turns from one side to the other. An
  // indented block between short lines of one column makes two turns and no more.
  let sideBySide = 0;
  let lastSide: 'left' | 'right' | undefined;
  for (const row of rows) {
    if (row.some((s) => s.x < gutter && s.endX > gutter)) continue;
    const onLeft = row.some((s) => s.endX <= gutter);
    const onRight = row.some((s) => s.x >= gutter);
    const only = onLeft && onRight ? undefined : onLeft ? 'left' : 'right';
    // A row with text on both sides says more than a turn, which a single indent also makes.
    if (!only) sideBySide += 2;
    else if (lastSide && only !== lastSide) sideBySide++;
    lastSide = only;
    for (const [side, segs] of [
      [sides.left, row.filter((s) => s.endX <= gutter)],
      [sides.right, row.filter((s) => s.x >= gutter)],
    ] as const) {
      if (!segs.length) continue;
      side.widest.push(Math.max(...segs.map((s) => s.endX - s.x)));
      side.extent.push(segs.at(-1)!.endX - segs[0]!.x);
    }
  }
  const wide = (xs: number[]) => {
    const n = xs.filter((w) => w >= width * 0.2).length;
    return n >= 2 && n >= xs.length * 0.3;
  };
  const { left, right } = sides;
  if (sideBySide < 3) return undefined;
  return (wide(left.widest) && wide(right.extent)) || (wide(left.extent) && wide(right.widest))
    ? gutter
    : undefined;
}

/**
 * Which side of the gutter a row that crosses it belongs to: a line of one column that runs a little
 * into the gutter (a long word, an equation) stays in its column; anything wider spans both.
 */
function sideOf(row: Segment[], gutter: number, width: number): 'left' | 'right' | 'both' {
  const x = Math.min(...row.map((s) => s.x));
  const endX = Math.max(...row.map((s) => s.endX));
  const slack = width * 0.08;
  if (endX - gutter < slack && gutter - x > slack) return 'left';
  if (gutter - x < slack && endX - gutter > slack) return 'right';
  return 'both';
}

interface RawLine {
  text: string;
  y: number;
  x: number;
  size: number;
  block: number;
  cells?: number[];
  font?: string;
  mono?: number;
}

function joinSegments(segs: Segment[], block: number): RawLine | undefined {
  const mono = monoText(segs.flatMap((s) => s.pieces));
  if (mono?.text.trim()) {
    const first = segs[0]!.pieces[0]!;
    return { text: mono.text, y: segs[0]!.y, x: first.x, size: first.size, block, mono: mono.width };
  }
  const parts: string[] = [];
  const cells: number[] = [];
  for (const seg of segs) {
    const text = segmentText(seg);
    if (!text) continue;
    parts.push(text);
    cells.push(seg.x, seg.endX);
  }
  if (!parts.length) return undefined;
  // The line's size is that of its longest piece, so one large symbol does not make it a heading.
  let main = segs[0]!.pieces[0]!;
  let font = main.font;
  for (const s of segs)
    for (const p of s.pieces) {
      if (p.str.length > main.str.length) main = p;
      if (p.font !== font) font = undefined;
    }
  const line: RawLine = { text: parts.join('\t'), y: segs[0]!.y, x: cells[0]!, size: main.size, block };
  if (parts.length > 1) line.cells = cells;
  if (font) line.font = font;
  return line;
}

/** The most common line spacing (to half a point; the smaller on a tie), 0 with one line. */
function usualGap(lines: RawLine[]): number {
  const counts = new Map<number, number>();
  for (let i = 1; i < lines.length; i++) {
    if (lines[i]!.block !== lines[i - 1]!.block) continue;
    const gap = Math.round((lines[i - 1]!.y - lines[i]!.y) * 2) / 2;
    if (gap > 0) counts.set(gap, (counts.get(gap) ?? 0) + 1);
  }
  let usual = 0;
  let most = 0;
  for (const [gap, count] of counts)
    if (count > most || (count === most && gap < usual)) [usual, most] = [gap, count];
  return usual;
}

/** Columns inside columns (three columns found as one, then two) are looked for this deep. */
const DEEPEST = 3;

/**
 * A region's rows in reading order, appended to `out`. Rows that cross the region's gutter (a title, an
 * abstract, a wide figure) divide it into bands; within a band the left side is read before the right,
 * each side a region of its own, which may have columns too.
 */
function readRegion(rows: Segment[][], out: RawLine[], blocks: { block: number }, depth: number): void {
  const gutter = depth < DEEPEST ? findGutter(rows) : undefined;
  if (gutter === undefined) {
    const block = blocks.block++;
    for (const row of rows) {
      const line = joinSegments(row, block);
      if (line) out.push(line);
    }
    return;
  }
  let left: Segment[][] = [];
  let right: Segment[][] = [];
  const flush = () => {
    if (left.length) readRegion(left, out, blocks, depth + 1);
    if (right.length) readRegion(right, out, blocks, depth + 1);
    left = [];
    right = [];
  };
  let spanning: Segment[][] = [];
  const endSpan = () => {
    // Consecutive rows across the gutter (a title, an abstract) are one block.
    if (!spanning.length) return;
    const block = blocks.block++;
    for (const row of spanning) {
      const line = joinSegments(row, block);
      if (line) out.push(line);
    }
    spanning = [];
  };
  const { width } = extent(rows);
  for (const row of rows) {
    const crossing = row.some((s) => s.x < gutter && s.endX > gutter);
    const side = crossing ? sideOf(row, gutter, width) : undefined;
    if (side === 'both') {
      flush();
      spanning.push(row);
      continue;
    }
    endSpan();
    if (side) (side === 'left' ? left : right).push(row);
    else {
      const l = row.filter((s) => s.endX <= gutter);
      const r = row.filter((s) => s.x >= gutter);
      if (l.length) left.push(l);
      if (r.length) right.push(r);
    }
  }
  endSpan();
  flush();
}

/**
 * The page's lines in reading order, each marked where a paragraph starts: the gap above it is clearly
 * wider than the page's usual line spacing, or the text jumps to a new column or block.
 */
export function pageLines(items: TextPiece[]): Line[] {
  return piecesLines(piecesOf(items));
}

/** Lines in reading order from pieces (a page's, or what is left of it once its ruled tables are out). */
export function piecesLines(pieces: Piece[]): Line[] {
  const raw: RawLine[] = [];
  readRegion(rowsOf(pieces), raw, { block: 0 }, 0);
  const usual = usualGap(raw);
  return raw.map((line, i) => {
    const prev = raw[i - 1];
    let paragraph = false;
    if (prev) {
      const gap = prev.y - line.y;
      paragraph =
        prev.block !== line.block ||
        gap < 0 ||
        gap > Math.max(usual * 1.3, Math.min(prev.size, line.size) * 1.5);
    }
    const out: Line = { text: line.text, y: line.y, x: line.x, size: line.size, paragraph };
    if (line.cells) out.cells = line.cells;
    if (line.font) out.font = line.font;
    if (line.mono) out.mono = line.mono;
    return out;
  });
}
