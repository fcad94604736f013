import { inline } from './inline.js';
import { type Paint, SGR, visibleLength } from './palette.js';

// A pipe table, once complete, with its columns aligned and light rules between them.

type Align = 'left' | 'right' | 'center';

/** A delimiter row: `| --- | :---: | ---: |`. */
export const isDelimiterRow = (line: string) =>
  /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/.test(line) && line.includes('-');

/** The cells of a row: split on `|` outside code spans, a backslash-escaped `\|` kept. */
export function cells(line: string): string[] {
  const out: string[] = [];
  let cell = '';
  let code = false;
  const s = line
    .trim()
    .replace(/^\|/, '')
    .replace(/(?<!\\)\|$/, '');
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (ch === '\\' && s[i + 1] === '|') {
      cell += '|';
      i++;
    } else if (ch === '`') {
      code = !code;
      cell += ch;
    } else if (ch === '|' && !code) {
      out.push(cell.trim());
      cell = '';
    } else cell += ch;
  }
  out.push(cell.trim());
  return out;
}

function pad(text: string, width: number, align: Align): string {
  const room = width - visibleLength(text);
  if (align === 'right') return ' '.repeat(room) + text;
  if (align === 'center') return ' '.repeat(Math.floor(room / 2)) + text + ' '.repeat(Math.ceil(room / 2));
  return text + ' '.repeat(room);
}

/**
 * The header row, the delimiter row under it, and the body. A table wider than the terminal (`width`) would
 * wrap into a tangle, so each row is shown as a block of `Header: value` lines instead.
 */
export function renderTable(
  header: string,
  delimiter: string,
  body: string[],
  paint: Paint,
  width = Number.POSITIVE_INFINITY,
): string[] {
  const aligns: Align[] = cells(delimiter).map((d) =>
    d.startsWith(':') && d.endsWith(':') ? 'center' : d.endsWith(':') ? 'right' : 'left',
  );
  const columns = aligns.length;
  const toColumns = (row: string[]) => Array.from({ length: columns }, (_, i) => row[i] ?? '');
  const head = toColumns(cells(header)).map((c) => inline(c, paint, [SGR.bold]));
  const rows = body.map((line) => toColumns(cells(line)).map((c) => inline(c, paint)));
  const widths = aligns.map((_, i) => Math.max(1, ...[head, ...rows].map((r) => visibleLength(r[i]!))));
  const bar = paint([SGR.grey], '│');
  const line = (r: string[]) =>
    r
      .map((c, i) => ` ${pad(c, widths[i]!, aligns[i]!)} `)
      .join(bar)
      .trimEnd();
  const rule = paint([SGR.grey], widths.map((w) => '─'.repeat(w + 2)).join('┼'));
  if (widths.reduce((sum, w) => sum + w + 3, -1) <= width) return [line(head), rule, ...rows.map(line)];
  const separator = paint([SGR.grey], '─'.repeat(Math.min(width, 40)));
  return rows.flatMap((r, k) => [...(k ? [separator] : []), ...r.map((c, i) => `${head[i]}: ${c}`)]);
}
