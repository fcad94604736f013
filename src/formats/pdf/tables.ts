import type { HeadedLine } from './headings.js';

// Tables found by their alignment (the "stream" method of pdfplumber and Camelot): consecutive rows
// split into parts by wide gaps, whose parts fall into the same columns, where a column is an x-range
// that some row's part covers and no row's gap crosses. Rows of short parts only: two columns of prose
// side by side are a page layout, not a table.

/** Parts longer than this (in characters, for half or more of the parts) are prose, not cells. */
const LONGEST_CELL = 40;
const MOST_COLUMNS = 12;
const FEWEST_ROWS = 3;

/** A line's tab-separated parts with their left and right edges, when the layout recorded them. */
function partsOf(line: HeadedLine): { text: string; x: number; endX: number }[] | undefined {
  // A table of contents' leaders mark an entry and its page, not a row of cells.
  if (!line.cells || line.heading || line.text.includes(' … ')) return undefined;
  const texts = line.text.split('\t');
  if (texts.length * 2 !== line.cells.length) return undefined;
  return texts.map((text, i) => ({
    text: text.trim(),
    x: line.cells![2 * i]!,
    endX: line.cells![2 * i + 1]!,
  }));
}

/** The columns of a run of rows: x-ranges covered by parts, separated by gaps no part crosses. */
export function columnsOf(rows: { x: number; endX: number }[][]): [number, number][] {
  const spans = rows.flat().sort((a, b) => a.x - b.x);
  const columns: [number, number][] = [];
  for (const s of spans) {
    const last = columns.at(-1);
    if (last && s.x <= last[1]) last[1] = Math.max(last[1], s.endX);
    else columns.push([s.x, s.endX]);
  }
  return columns;
}

/** The rows as a table (cells in columns), or undefined when they do not make one. */
function asTable(lines: HeadedLine[]): string[][] | undefined {
  const rows = lines.map((l) => partsOf(l)!);
  const columns = columnsOf(rows);
  if (columns.length < 2 || columns.length > MOST_COLUMNS) return undefined;
  // Two columns make a table only over more rows: three lines of "term  page" may be anything.
  if (columns.length === 2 && rows.length < FEWEST_ROWS + 1) return undefined;
  const cells = rows.flat();
  const long = cells.filter((c) => c.text.length > LONGEST_CELL).length;
  if (long * 2 >= cells.length) return undefined;
  const table = rows.map((parts) => {
    const row = columns.map(() => '');
    for (const part of parts) {
      const col = columns.findIndex(([, end]) => part.x <= end);
      row[col] = row[col] ? `${row[col]} ${part.text}` : part.text;
    }
    return row;
  });
  // Numbered lines (a listing's line numbers in the margin) are not a table's first column.
  const numbers = table.map((r) => Number(/^\d+$/.test(r[0]!) ? r[0] : Number.NaN));
  if (numbers.every((n, i) => i === 0 || n === numbers[i - 1]! + 1)) return undefined;
  // Every column used by at least two rows: a stray part is not a column.
  for (let c = 0; c < columns.length; c++) if (table.filter((r) => r[c]).length < 2) return undefined;
  return table;
}

/**
 * Replaces each run of aligned rows on a page by one line carrying the table. Rows that do not make a
 * table keep their parts apart with tabs.
 */
export function findTables(lines: HeadedLine[]): void {
  for (let i = 0; i < lines.length; i++) {
    if (!partsOf(lines[i]!)) continue;
    let j = i + 1;
    // One run: rows of parts, going down the page without a jump to another column or a wide gap.
    while (
      j < lines.length &&
      partsOf(lines[j]!) &&
      lines[j]!.y < lines[j - 1]!.y &&
      lines[j - 1]!.y - lines[j]!.y < lines[j]!.size * 3
    )
      j++;
    if (j - i >= FEWEST_ROWS) {
      const table = asTable(lines.slice(i, j));
      if (table) {
        const first = lines[i]!;
        lines.splice(i, j - i, { ...first, text: table.flat().join(' '), table, paragraph: true });
        continue;
      }
    }
    i = j - 1;
  }
}

/** Whether two rows have a part (after the first) starting at the same x: their gaps line up. */
function aligned(a: HeadedLine | undefined, b: HeadedLine | undefined): boolean {
  const [pa, pb] = [a && partsOf(a), b && partsOf(b)];
  if (!pa || !pb) return false;
  return pa
    .slice(1)
    .some((p) => pb.slice(1).some((q) => Math.abs(p.x - q.x) < 2 || Math.abs(p.endX - q.endX) < 2));
}

/**
 * Tabs kept only where the gaps line up with a neighbouring row's (columns that did not make a table);
 * a wide gap of its own (a justified line in a narrow column) is a word space.
 */
export function untab(lines: HeadedLine[]): void {
  const loose = lines.filter((l, i) => l.cells && !aligned(l, lines[i - 1]) && !aligned(l, lines[i + 1]));
  for (const line of loose) {
    line.text = line.text.replace(/\t/g, ' ');
    delete line.cells;
  }
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** A table as Markdown: the first row as its header. */
export function tableMarkdown(table: string[][]): string {
  const row = (cells: string[]) => `| ${cells.map(cell).join(' | ')} |`;
  return [row(table[0]!), row(table[0]!.map(() => '---')), ...table.slice(1).map(row)].join('\n');
}
