import { highlight } from './highlight.js';
import { inline } from './inline.js';
import { type Paint, SGR } from './palette.js';
import { isDelimiterRow, renderTable } from './table.js';
import { hangingIndent, wrapLine } from './wrap.js';

// Markdown rendered for a terminal as it streams: each line is drawn when it is complete, a table or a
// fenced code block when it closes, and nothing drawn is ever redrawn. The same class renders a whole text
// (push it all, then end), so a streamed reply looks exactly like the saved one shown again.

const FENCE = /^(\s{0,3})(`{3,}|~{3,})\s*([^\s`]*)[^`]*$/;
const HEADING = /^\s{0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$/;
const RULE = /^\s{0,3}([-*_])(?:\s*\1){2,}\s*$/;
const ITEM = /^(\s*)([-*+]|\d{1,9}[.)])\s+(?:\[([ xX])\]\s+)?(.*)$/;
const QUOTE = /^\s{0,3}>\s?(.*)$/;
const BULLETS = ['•', '◦', '▪'];

interface Fence {
  indent: string;
  marker: string;
  lang: string;
  lines: string[];
}

export class MarkdownStream {
  private partial = '';
  private fence?: Fence;
  /** A line with a `|`: the header of a table if the next line is a delimiter row. */
  private maybeHeader?: string;
  private table?: { header: string; delimiter: string; rows: string[] };

  /**
   * `width`: the terminal's columns, asked at each line so that a resized terminal (SIGWINCH, which Node
   * turns into a new `columns`) is followed; `wrapWidth`: where text wraps, 0 for not at all.
   */
  constructor(
    private readonly paint: Paint,
    private readonly width: () => number = () => 80,
    private readonly wrapWidth: () => number = width,
  ) {}

  /** The rendered text of every line this chunk completes (empty while a line, table or fence is open). */
  push(chunk: string): string {
    this.partial += chunk;
    const lines = this.partial.split('\n');
    this.partial = lines.pop()!;
    return lines.map((l) => this.line(l.replace(/\r$/, ''))).join('');
  }

  /**
   * The line still being written, when it will be drawn as a line of text once complete (not inside a
   * table or a fence, nor one that may start either): what a terminal can show of it meanwhile.
   */
  pending(): string {
    if (this.fence || this.table || this.maybeHeader !== undefined) return '';
    if (this.partial.includes('|') || /^\s{0,3}(`|~)/.test(this.partial)) return '';
    return this.partial;
  }

  /** Everything still held (the last line, an open table or fence), rendered; the stream starts afresh. */
  end(): string {
    let out = this.partial ? this.line(this.partial) : '';
    this.partial = '';
    out += this.closeTable();
    if (this.fence) out += this.code(this.fence);
    this.fence = undefined;
    return out;
  }

  private line(line: string): string {
    if (this.fence) {
      const close = FENCE.exec(line);
      if (
        close &&
        close[2]![0] === this.fence.marker[0] &&
        close[2]!.length >= this.fence.marker.length &&
        !close[3]
      ) {
        const out = this.code(this.fence);
        this.fence = undefined;
        return out;
      }
      this.fence.lines.push(
        line.startsWith(this.fence.indent) ? line.slice(this.fence.indent.length) : line.trimStart(),
      );
      return '';
    }
    if (this.table) {
      if (line.includes('|') && line.trim()) {
        this.table.rows.push(line);
        return '';
      }
      return this.closeTable() + this.line(line);
    }
    if (this.maybeHeader !== undefined) {
      const header = this.maybeHeader;
      this.maybeHeader = undefined;
      if (isDelimiterRow(line)) {
        this.table = { header, delimiter: line, rows: [] };
        return '';
      }
      return this.block(header) + this.line(line);
    }
    const fence = FENCE.exec(line);
    if (fence) {
      this.fence = { indent: fence[1]!, marker: fence[2]!, lang: fence[3]!.toLowerCase(), lines: [] };
      return '';
    }
    if (line.includes('|') && !ITEM.test(line) && !QUOTE.test(line)) {
      this.maybeHeader = line;
      return '';
    }
    return this.block(line);
  }

  private closeTable(): string {
    let out = '';
    if (this.table)
      out = `${renderTable(this.table.header, this.table.delimiter, this.table.rows, this.paint, this.width()).join('\n')}\n`;
    this.table = undefined;
    if (this.maybeHeader !== undefined) out += this.block(this.maybeHeader);
    this.maybeHeader = undefined;
    return out;
  }

  private code(f: Fence): string {
    const p = this.paint;
    const bar = p([SGR.grey], '│ ');
    const body = highlight(f.lines.join('\n'), f.lang, p).map((l) => `  ${bar}${l}`);
    return `${[`  ${p([SGR.grey], `┌${f.lang ? ` ${f.lang}` : ''}`)}`, ...body, `  ${p([SGR.grey], '└')}`].join('\n')}\n`;
  }

  /** A line outside tables and fences: heading, rule, list item, quote or text. */
  private block(line: string): string {
    const p = this.paint;
    const heading = HEADING.exec(line);
    if (heading) {
      const level = heading[1]!.length;
      const colour = level === 1 ? [SGR.bold, SGR.magenta] : level === 2 ? [SGR.bold, SGR.cyan] : [SGR.bold];
      const text = wrapLine(inline(heading[2]!, p, colour), this.wrapWidth());
      if (level > 2) return `${text}\n`;
      const rule = (level === 1 ? '═' : '─').repeat(Math.min([...heading[2]!].length, this.width()));
      return `${text}\n${p([SGR.grey], rule)}\n`;
    }
    if (RULE.test(line)) return `${p([SGR.grey], '─'.repeat(Math.min(60, this.width())))}\n`;
    const item = ITEM.exec(line);
    if (item) {
      const [, indent, marker, task, text] = item;
      const depth = Math.floor(indent!.length / 2);
      const bullet = /\d/.test(marker!) ? marker! : BULLETS[depth % BULLETS.length]!;
      const box = task === undefined ? '' : task === ' ' ? '☐ ' : '☒ ';
      // Continued lines start under the item's text, not under its bullet.
      const first = `${indent}${p([SGR.cyan], bullet)} ${box}`;
      return this.wrap(inline(text!, p), first, hangingIndent(first, this.width()));
    }
    const quote = QUOTE.exec(line);
    if (quote) {
      const bar = `${p([SGR.grey], '│')} `;
      return this.wrap(inline(quote[1]!, p, [SGR.italic]), bar, bar);
    }
    const indent = /^\s*/.exec(line)![0];
    return this.wrap(inline(line.slice(indent.length), p), indent, hangingIndent(indent, this.width()));
  }

  /** Rendered inline text wrapped to the terminal's width now (it may have changed since the last line). */
  private wrap(text: string, first: string, rest: string): string {
    const width = this.wrapWidth();
    // A hard break inside the text starts a line with the continuation prefix.
    const lines = text.split('\n').map((l, i) => wrapLine(l, width, { first: i ? rest : first, rest }));
    return `${lines.join('\n')}\n`;
  }
}
