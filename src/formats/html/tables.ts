import type { HTMLElement, Node } from 'node-html-parser';
import { elementChildren, isElement, tagOf } from './dom.js';

// Tables: tell a data table from one that merely lays out the page, and write data tables as pipe
// tables. As in Readability's _markDataTables, the signals are structural; unlike it, a small table
// without <th> still counts as data (a two-row price table is the answer, not decoration).

const SECTION_TAGS = new Set(['thead', 'tbody', 'tfoot']);
const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
/** Blocks that, more than one to a cell, mean the cell holds a piece of page rather than a value. */
const CELL_BLOCKS = new Set([
  'p',
  'div',
  'section',
  'article',
  'blockquote',
  'pre',
  'ul',
  'ol',
  'dl',
  'form',
  'header',
  'footer',
  'figure',
]);
/** A cell with more text than this is a column of the page, not a value in a table. */
const LONG_CELL = 1000;
/** Bounds on colspan/rowspan, so a malformed page cannot make a table of millions of cells. */
const MAX_SPAN = 50;

/** The rows of this table (not of tables nested in it) in reading order: a <tfoot> comes last. */
export function tableRows(table: HTMLElement): HTMLElement[] {
  const rows: HTMLElement[] = [];
  const foot: HTMLElement[] = [];
  for (const child of elementChildren(table)) {
    const tag = tagOf(child);
    if (tag === 'tr') rows.push(child);
    else if (SECTION_TAGS.has(tag))
      for (const row of elementChildren(child))
        if (tagOf(row) === 'tr') (tag === 'tfoot' ? foot : rows).push(row);
  }
  return rows.concat(foot);
}

export const rowCells = (row: HTMLElement): HTMLElement[] =>
  elementChildren(row).filter((c) => tagOf(c) === 'td' || tagOf(c) === 'th');

function span(cell: HTMLElement, name: 'colspan' | 'rowspan'): number {
  const n = Number.parseInt(cell.getAttribute(name) ?? '1', 10);
  return Number.isFinite(n) && n >= 1 ? Math.min(n, MAX_SPAN) : 1;
}

/** How many innermost blocks a cell holds (a <p> inside a <div> counts once), and whether one is a heading. */
function cellShape(cell: HTMLElement): { blocks: number; heading: boolean } {
  let blocks = 0;
  let heading = false;
  const visit = (e: HTMLElement): boolean => {
    let inner = false;
    for (const c of elementChildren(e)) {
      const tag = tagOf(c);
      if (HEADINGS.has(tag)) heading = true;
      const below = visit(c);
      if (CELL_BLOCKS.has(tag)) {
        if (!below) blocks++;
        inner = true;
      } else if (below) inner = true;
    }
    return inner;
  };
  visit(cell);
  return { blocks, heading };
}

/**
 * A data table is written as a pipe table; anything else (nested tables, one column, one row of
 * layout, cells holding headings or several paragraphs, role="presentation") is read as plain blocks.
 * `document`: a converted document, where a cell of several short paragraphs is still a value.
 */
export function isDataTable(table: HTMLElement, document = false): boolean {
  const role = (table.getAttribute('role') ?? '').toLowerCase();
  if (role === 'presentation' || role === 'none' || table.getAttribute('datatable') === '0') return false;
  if (table.querySelector('table')) return false;
  const rows = tableRows(table);
  if (rows.length === 0) return false;
  const cells = rows.flatMap(rowCells);
  const columns = rows.reduce(
    (most, r) =>
      Math.max(
        most,
        rowCells(r).reduce((n, c) => n + span(c, 'colspan'), 0),
      ),
    0,
  );
  if (columns <= 1) return false;
  const marked =
    cells.some((c) => tagOf(c) === 'th') ||
    elementChildren(table).some((c) => tagOf(c) === 'thead' || tagOf(c) === 'caption') ||
    table.hasAttribute('summary');
  if (marked) return true;
  if (rows.length === 1) return false;
  return cells.every((c) => {
    const shape = cellShape(c);
    // In a converted document (Word), cells of several paragraphs are common in tables of data.
    return !shape.heading && (document || shape.blocks <= 1) && c.textContent.length <= LONG_CELL;
  });
}

/**
 * How an inline element is written inside a cell (a link as `[text](url)`, a footnote reference), or
 * undefined to write its text.
 */
export type InlineWriter = (e: HTMLElement, text: (e: HTMLElement) => string) => string | undefined;

/** A cell's text on one line: block boundaries become spaces, list items are separated by `;`. */
export function cellText(cell: HTMLElement, inline?: InlineWriter): string {
  let out = '';
  const walk = (n: Node) => {
    if (!isElement(n)) {
      out += n.text;
      return;
    }
    const tag = tagOf(n);
    const written = inline?.(n, (e) => cellText(e));
    if (written !== undefined) {
      out += written;
      return;
    }
    if (tag === 'br') out += ' ';
    else if (tag === 'li') out += '; ';
    else if (CELL_BLOCKS.has(tag) || HEADINGS.has(tag)) out += ' ';
    for (const c of n.childNodes) walk(c);
  };
  for (const c of cell.childNodes) walk(c);
  return out
    .replace(/\s+/g, ' ')
    .replace(/(\s*;)+\s*;/g, ';')
    .replace(/\s+;/g, ';')
    .replace(/^[\s;]+|\s+$/g, '');
}

/**
 * The table as a grid of cell texts: a colspan fills the columns it covers with empty cells, a rowspan
 * repeats its text in the rows below (the value applies to each), short rows are padded.
 */
export function tableGrid(table: HTMLElement, inline?: InlineWriter): { header: string[]; body: string[][] } {
  const pending: { text: string; left: number }[] = [];
  const grid: { cells: string[]; allTh: boolean; th: boolean }[] = [];
  for (const row of tableRows(table)) {
    const out: string[] = [];
    let col = 0;
    const fillSpanned = () => {
      for (let p = pending[col]; p && p.left > 0; p = pending[col]) {
        out[col] = p.text;
        p.left--;
        col++;
      }
    };
    const cells = rowCells(row);
    for (const cell of cells) {
      fillSpanned();
      const text = cellText(cell, inline);
      const down = span(cell, 'rowspan') - 1;
      for (let k = 0; k < span(cell, 'colspan'); k++, col++) {
        out[col] = k === 0 ? text : '';
        pending[col] = { text: out[col]!, left: down };
      }
    }
    fillSpanned();
    const th = cells.filter((c) => tagOf(c) === 'th').length;
    if (out.some(Boolean))
      grid.push({ cells: Array.from(out, (c) => c ?? ''), allTh: th === cells.length, th: th > 0 });
  }
  // Columns empty in every row (made only by colspans) are left out.
  const width = grid.reduce((w, r) => Math.max(w, r.cells.length), 0);
  const used = Array.from({ length: width }, (_, i) => grid.some((r) => r.cells[i]));
  const rows = grid.map((r) =>
    Array.from({ length: width }, (_, i) => r.cells[i] ?? '').filter((_, i) => used[i]),
  );
  // The first row is the header when it is all <th>, or when the table has no <th> at all (then it
  // almost always names the columns). A table whose <th> only start rows is a list of name/value pairs:
  // its header is left empty rather than made of the first pair.
  if (grid[0] && !grid[0].allTh && grid.some((r) => r.th))
    return { header: Array<string>(rows[0]!.length).fill(''), body: rows };
  const header = rows[0] ?? [];
  // Long tables repeat the header (in a <tfoot>, or every few rows): once is enough.
  const same = (r: string[]) => r.every((c, i) => c === header[i]);
  return { header, body: rows.slice(1).filter((r) => !same(r)) };
}

/**
 * The caption (and a title row spanning the whole table) as a line, then the pipe table; undefined when
 * only one column has text (an icon beside a note, as DocBook writes its Tip and Note boxes).
 */
export function pipeTable(table: HTMLElement, inline?: InlineWriter): string | undefined {
  let { header, body } = tableGrid(table, inline);
  if (header.length <= 1) return undefined;
  const lines: string[] = [];
  const caption = elementChildren(table).find((c) => tagOf(c) === 'caption');
  const title = caption && cellText(caption, inline);
  if (title) lines.push(title);
  if (header.length > 1 && body.length > 0 && header[0] && header.slice(1).every((c) => !c)) {
    lines.push(header[0]);
    header = body[0]!;
    body = body.slice(1);
  }
  if (header.length === 0) return lines.join('\n');
  const row = (cells: string[]) => `| ${cells.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`;
  return lines.concat(row(header), row(header.map(() => '---')), body.map(row)).join('\n');
}
