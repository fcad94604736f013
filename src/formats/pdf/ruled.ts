import { type Line, type Piece, piecesLines, rowsOf, type Segment, segmentText } from './layout.js';
import type { Rule } from './rules.js';
import { columnsOf } from './tables.js';

// Tables drawn with rules: booktabs' top, middle and bottom rules (the common case in papers), or a
// grid of cell borders. The horizontal rules say where a table starts and ends; vertical rules, when
// there are any, where its columns are, else the gaps that no row's text crosses.

/** Two rules this close in y (points) are one; a rule's ends this close in x touch. */
const NEAR = 1.5;
/** Text this far outside a table's rules (points) still belongs to it. */
const SLACK = 3;
/** Cells longer than this (in characters), for half or more of them, are prose. */
const LONGEST_CELL = 40;
/** Text within this many points left or right of a table's rules, at its rows' height, would be part of it. */
const MARGIN = 24;
/** Inside a ruled table, pieces further apart than this many font sizes are separate cells. */
const CELL_GAP = 0.6;

interface Region {
  x0: number;
  x1: number;
  /** The rules' heights, top first. */
  ys: number[];
  columns?: number[];
}

/** Horizontal rules joined where they continue one another (a rule drawn per cell). */
function horizontals(rules: Rule[]): Rule[] {
  const hs = rules.filter((r) => r.y0 === r.y1).sort((a, b) => b.y0 - a.y0 || a.x0 - b.x0);
  const out: Rule[] = [];
  for (const r of hs) {
    const last = out.at(-1);
    if (last && Math.abs(last.y0 - r.y0) <= NEAR && r.x0 <= last.x1 + NEAR) last.x1 = Math.max(last.x1, r.x1);
    else out.push({ ...r });
  }
  return out;
}

const overlap = (a: Rule, b: Rule) => Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);

/**
 * Runs of horizontal rules one under another over the same width (each pair overlapping by most of the
 * narrower), with text between the first and the last: a table each, its interior vertical rules as
 * column edges. Prose between two rules (a framed note) is sorted out later, as it has no columns.
 */
function regions(rules: Rule[], pieces: Piece[]): Region[] {
  const hs = horizontals(rules);
  const vs = rules.filter((r) => r.x0 === r.x1);
  const out: Region[] = [];
  let run: Rule[] = [];
  const close = () => {
    if (run.length >= 2) {
      const x0 = Math.min(...run.map((r) => r.x0));
      const x1 = Math.max(...run.map((r) => r.x1));
      const [top, bottom] = [run[0]!.y0, run.at(-1)!.y0];
      const rows = pieces.filter((p) => p.y < top && p.y > bottom);
      const inside = rows.some((p) => p.x >= x0 - SLACK && p.endX <= x1 + SLACK);
      // Text right beside the rules (a listing's line numbers in the margin) belongs with what they frame.
      const beside = rows.some(
        (p) => (p.endX > x0 - MARGIN && p.x < x0 - SLACK) || (p.x < x1 + MARGIN && p.endX > x1 + SLACK),
      );
      if (inside && !beside) {
        const region: Region = { x0, x1, ys: run.map((r) => r.y0) };
        const columns = vs
          .filter((v) => v.x0 > x0 + SLACK && v.x0 < x1 - SLACK && v.y1 > bottom && v.y0 < top)
          .map((v) => v.x0)
          .sort((a, b) => a - b)
          .filter((x, i, xs) => i === 0 || x - xs[i - 1]! > NEAR);
        if (columns.length) region.columns = columns;
        out.push(region);
      }
    }
    run = [];
  };
  for (const r of hs) {
    const [first, last] = [run[0], run.at(-1)];
    if (last && Math.abs(last.y0 - r.y0) <= NEAR) continue; // a double rule
    const width = (x: Rule) => x.x1 - x.x0;
    if (first && (width(r) < 0.8 * width(first) || overlap(first, r) < 0.8 * width(first))) {
      // A shorter rule within the table's width (booktabs' \cmidrule under a spanning header, a
      // footnote's rule) neither ends the table nor bounds it.
      if (r.x0 >= first.x0 - SLACK && r.x1 <= first.x1 + SLACK) continue;
      close();
    }
    run.push(r);
  }
  close();
  return out;
}

/** A region's pieces as rows of cells, or undefined when they do not fall into two columns or more. */
function cellsOf(region: Region, pieces: Piece[]): string[][] | undefined {
  const rows = rowsOf(pieces, CELL_GAP);
  const top = region.ys[0]!;
  let edges: number[];
  if (region.columns) edges = region.columns;
  else {
    // Under a header (above the first inner rule), cells line up; a header cell may span columns.
    const under = region.ys.length > 2 ? region.ys[1]! : top;
    const body = rows.filter((r) => r[0]!.y < under);
    const columns = columnsOf(body.length >= 2 ? body : rows);
    edges = columns.slice(1).map(([x], i) => (columns[i]![1] + x) / 2);
  }
  if (!edges.length) return undefined;
  const table = rows.map((row) => {
    const cells = Array.from({ length: edges.length + 1 }, () => [] as string[]);
    for (const seg of row) {
      let c = 0;
      while (c < edges.length && seg.x >= edges[c]!) c++;
      cells[c]!.push(segmentText(seg));
    }
    return cells.map((parts) => parts.join(' '));
  });
  // Prose between rules (an abstract, a framed note) has long lines, even where a gap splits some.
  const filled = table.flat().filter(Boolean);
  if (filled.filter((c) => c.length > LONGEST_CELL).length * 2 >= filled.length) return undefined;
  // Each column used by a third of the rows (two at least): a framed paragraph or listing with a
  // gap in a line or two is not a table.
  const least = Math.max(2, Math.ceil(table.length / 3));
  if (table[0]!.some((_, c) => table.filter((r) => r[c]).length < least)) return undefined;
  // A grid (a rule under each row): the lines a cell wraps to are one row.
  if (!region.columns || region.ys.length < 3 || rows.length < region.ys.length) return table;
  const merged: string[][] = [];
  let band = -1;
  for (const [i, row] of rows.entries()) {
    const b = region.ys.findIndex((y) => y < row[0]!.y);
    const last = merged.at(-1);
    if (b === band && last)
      for (const [c, cell] of table[i]!.entries()) last[c] = [last[c], cell].filter(Boolean).join(' ');
    else merged.push(table[i]!);
    band = b;
  }
  return merged;
}

/**
 * The page's lines with each table drawn with rules as one line carrying its rows (`table`), placed in
 * reading order before the first line below it in its column. Pages without such tables read as usual.
 */
export function ruledPageLines(pieces: Piece[], rules: Rule[]): Line[] {
  const tables: { line: Line; region: Region }[] = [];
  let rest = pieces;
  for (const region of regions(rules, pieces)) {
    const [top, bottom] = [region.ys[0]!, region.ys.at(-1)!];
    const within = (p: Piece) =>
      p.y < top && p.y > bottom && p.x >= region.x0 - SLACK && p.endX <= region.x1 + SLACK;
    const inside = rest.filter(within);
    const table = cellsOf(region, inside.slice());
    if (!table) continue;
    rest = rest.filter((p) => !within(p));
    const size = inside.map((p) => p.size).sort((a, b) => a - b)[inside.length >> 1]!;
    const line = { text: table.flat().join(' '), y: top, x: region.x0, size, paragraph: true, table };
    tables.push({ line, region });
  }
  const lines = piecesLines(rest);
  for (const { line, region } of tables) {
    // Before the first line under the table that starts within its width, in reading order.
    let at = lines.findIndex((l) => l.y < line.y && l.x >= region.x0 - 4 * SLACK && l.x < region.x1);
    if (at < 0) at = lines.length;
    if (lines[at]) lines[at]!.paragraph = true;
    lines.splice(at, 0, line);
  }
  return lines;
}

/** Characters in a segment (its pieces' text, spaces between them aside). */
const charsOf = (seg: Segment) => seg.pieces.reduce((n, p) => n + p.str.length, 0);

/** Whether two cells of a row are closer than the layout's own gap, so it would run them together. */
const narrow = (row: Segment[]) =>
  row.some((seg, i) => i > 0 && seg.x - row[i - 1]!.endX <= Math.max(seg.size, row[i - 1]!.size));

/**
 * Whether a page may hold a table that only its rules can tell: three rows in a row split into short
 * cells (a line of prose or a definition list's description is not a cell) whose inner cells start at
 * the same x, some of them closer than the layout's gap between cells. Only such pages have their
 * operator list read for rules, which costs over half as much again as the text; aligned rows with
 * wide gaps are found by their alignment (tables.ts) without it.
 */
export function mayHaveTable(pieces: Piece[]): boolean {
  let run = 0;
  let close = false;
  let starts: number[] | undefined;
  let single = 0;
  for (const row of rowsOf(pieces, CELL_GAP)) {
    // One row of one part between two of cells may be a cell wrapped to a second line; two end the run.
    if ((row.length < 2 && ++single > 1) || row.some((seg) => charsOf(seg) > LONGEST_CELL)) {
      [run, starts, close] = [0, undefined, false];
      continue;
    }
    if (row.length < 2) continue;
    single = 0;
    const xs = row.slice(1).map((s) => s.x);
    if (starts?.some((x) => xs.some((y) => Math.abs(x - y) < NEAR))) run++;
    else [run, close] = [1, false];
    close ||= narrow(row);
    if (run >= 3 && close) return true;
    starts = xs;
  }
  return false;
}
