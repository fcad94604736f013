import type { TextItem } from 'pdfjs-dist/types/src/display/api.js';

// A page's text items in reading order. pdf.js gives items in drawing order, which is often not the
// order of reading (page numbers of a table of contents drawn last, running headers drawn after the
// body), so items are placed by position: rows by baseline, left to right, and on a page set in two
// columns the left column before the right one.

/** The part of a pdf.js text item this module reads (marked-content items have no `str`). */
export type TextPiece = Pick<TextItem, 'str' | 'dir' | 'transform' | 'width' | 'height' | 'hasEOL'>;

interface Piece {
  str: string;
  x: number;
  y: number;
  endX: number;
  size: number;
}

/** A line of a page in reading order; `size` is the font size of most of it, for telling headings. */
export interface Line {
  text: string;
  y: number;
  size: number;
  /** A paragraph (or new column) starts here: a blank line goes before it. */
  paragraph: boolean;
}

interface Segment {
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

function piecesOf(items: TextPiece[]): Piece[] {
  const pieces: Piece[] = [];
  for (const item of items) {
    const str = item.str;
    if (!str?.trim()) continue;
    const t = item.transform;
    const size = item.height || Math.hypot(t[2] ?? 0, t[3] ?? 0) || 1;
    const x = t[4] ?? 0;
    pieces.push({ str: unspace(str), x, y: t[5] ?? 0, endX: x + Math.max(item.width, 0), size });
  }
  return pieces;
}

/** Pieces grouped into rows by baseline (top to bottom), each row's pieces split into segments. */
function rowsOf(pieces: Piece[]): Segment[][] {
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
    const segments: Segment[] = [];
    let prev: Piece | undefined;
    for (const p of r) {
      // Bold faked by drawing the same text twice, a hair apart: read once.
      if (prev && prev.str === p.str && Math.abs(p.x - prev.x) < p.size * 0.3) continue;
      prev = p;
      const last = segments.at(-1);
      if (last && p.x - last.endX <= SEGMENT_GAP * Math.max(p.size, last.size)) {
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
function segmentText(seg: Segment): string {
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

/**
 * The x of the gutter of a page set in two columns, or undefined. A gutter is a strip near the middle
 * that few rows cross, with many rows of text on each side, and the text on each side is prose (wide
 * lines), so a page that is one table is not taken apart.
 */
function findGutter(rows: Segment[][]): number | undefined {
  if (rows.length < 4) return undefined;
  let minX = Number.POSITIVE_INFINITY;
  let maxX = Number.NEGATIVE_INFINITY;
  for (const row of rows)
    for (const s of row) {
      minX = Math.min(minX, s.x);
      maxX = Math.max(maxX, s.endX);
    }
  const width = maxX - minX;
  if (width < 100) return undefined;
  const BUCKET = 2;
  const cover = new Uint32Array(Math.ceil(width / BUCKET) + 1);
  for (const row of rows)
    for (const s of row)
      for (let b = Math.floor((s.x - minX) / BUCKET); b <= Math.floor((s.endX - minX) / BUCKET); b++)
        cover[b]!++;
  // The middle of the longest run of least-crossed strips in the middle 40% of the page.
  const from = Math.floor((width * 0.3) / BUCKET);
  const to = Math.ceil((width * 0.7) / BUCKET);
  let least = Number.POSITIVE_INFINITY;
  for (let b = from; b <= to; b++) least = Math.min(least, cover[b]!);
  if (least > rows.length * 0.3) return undefined;
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
  const left: number[] = [];
  const right: number[] = [];
  for (const row of rows)
    for (const s of row) {
      if (s.endX <= gutter) left.push(s.endX - s.x);
      else if (s.x >= gutter) right.push(s.endX - s.x);
    }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1] ?? 0;
  const prose = (xs: number[]) => xs.length >= 2 && median(xs) >= width * 0.2;
  return prose(left) && prose(right) ? gutter : undefined;
}

interface RawLine {
  text: string;
  y: number;
  size: number;
  block: number;
}

function joinSegments(segs: Segment[], block: number): RawLine | undefined {
  const text = segs.map(segmentText).filter(Boolean).join(' ');
  if (!text) return undefined;
  // The line's size is that of its longest piece, so one large symbol does not make it a heading.
  let main = segs[0]!.pieces[0]!;
  for (const s of segs) for (const p of s.pieces) if (p.str.length > main.str.length) main = p;
  return { text, y: segs[0]!.y, size: main.size, block };
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

/**
 * The page's lines in reading order, each marked where a paragraph starts: the gap above it is clearly
 * wider than the page's usual line spacing, or the text jumps to a new column or block.
 */
export function pageLines(items: TextPiece[]): Line[] {
  const rows = rowsOf(piecesOf(items));
  const gutter = findGutter(rows);
  const raw: RawLine[] = [];
  let block = 0;
  if (gutter === undefined) {
    for (const row of rows) {
      const line = joinSegments(row, 0);
      if (line) raw.push(line);
    }
  } else {
    // Rows that cross the gutter (a title, an abstract, a wide figure) divide the page into bands;
    // within a band the left column is read before the right one.
    let left: RawLine[] = [];
    let right: RawLine[] = [];
    const flush = () => {
      raw.push(...left, ...right);
      left = [];
      right = [];
    };
    let spanning = false;
    for (const row of rows) {
      if (row.some((s) => s.x < gutter && s.endX > gutter)) {
        // Consecutive rows across the gutter (a title, an abstract) are one block.
        if (!spanning) {
          flush();
          block++;
        }
        spanning = true;
        const line = joinSegments(row, block);
        if (line) raw.push(line);
        continue;
      }
      if (spanning) block++;
      spanning = false;
      const l = joinSegments(
        row.filter((s) => s.endX <= gutter),
        block,
      );
      const r = joinSegments(
        row.filter((s) => s.x >= gutter),
        block + 0.5,
      );
      if (l) left.push(l);
      if (r) right.push(r);
    }
    flush();
  }
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
    return { text: line.text, y: line.y, size: line.size, paragraph };
  });
}
