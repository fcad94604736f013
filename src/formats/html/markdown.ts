import type { HTMLElement, Node } from 'node-html-parser';
import { escapeMarkdownLine } from '../escape.js';
import { BLOCK_TAGS, elementChildren, isElement, isHeadingAnchor, stripAnchorMarks, tagOf } from './dom.js';
import { findNotes, type Notes, noteText } from './notes.js';
import { type InlineWriter, isDataTable, pipeTable, rowCells, tableRows } from './tables.js';

// Light Markdown from HTML: headings with `#`, list items with `- ` or `1. ` one per line (nested lists
// indented to their parent's text), data tables as pipe tables, code blocks fenced verbatim, quotes with
// `> `, paragraphs separated by a blank line, links as `[text](url)`, bold and italic as `**` and `*`,
// footnotes as `[^1]` with their text after the document (notes.ts).

export interface RenderOptions {
  /** A web page's address: relative links are resolved against it. Without it they stay as written. */
  base?: string;
  /** A converted document: a table whose cells hold several paragraphs is still a table of data. */
  document?: boolean;
}

interface Context extends RenderOptions {
  notes: Notes;
}

const HEADING = /^h([1-6])$/;
const INLINE_CODE = new Set(['code', 'kbd', 'samp', 'tt']);
const LIST_ITEM = /^\s*([-*] |\d+\. )/;

/** Writes nodes as Markdown blocks (each a paragraph, heading, list, table, quote or code block). */
export function renderMarkdown(nodes: Node[], options: RenderOptions = {}): string {
  const ctx: Context = { ...options, notes: findNotes(nodes) };
  const blocks = renderBlocks(nodes, ctx);
  // A note is written once, after the text, even when it stood outside the nodes written (a web page's
  // footnotes below its article); its reference would otherwise point nowhere.
  for (const { label, parts } of ctx.notes.notes) {
    const text = renderBlocks(
      parts.flatMap((p) => p.childNodes),
      ctx,
    );
    if (text.length) blocks.push(noteText(label, text));
  }
  return blocks.join('\n\n');
}

function renderBlocks(nodes: Node[], ctx: Context): string[] {
  const r = new BlockWriter(ctx);
  for (const n of nodes) r.walk(n);
  return r.finish();
}

/** Collapses runs of white space inside each line, keeps the lines that `<br>` made. */
function tidyLines(text: string): string {
  return text
    .split('\n')
    .map((l) => l.replace(/\s+/g, ' ').trim())
    .filter(Boolean)
    .map(escapeMarkdownLine)
    .join('\n');
}

/** A fence longer than any run of backticks in the code, so the code cannot close it early. */
function fence(code: string, lang: string): string {
  const longest = (code.match(/`+/g) ?? []).reduce((most, run) => Math.max(most, run.length), 2);
  const marks = '`'.repeat(longest + 1);
  return `${marks}${lang}\n${code}\n${marks}`;
}

function codeLanguage(e: HTMLElement): string {
  const names = [e, ...e.querySelectorAll('code')].map((c) => c.getAttribute('class') ?? '').join(' ');
  return /(?:^|\s)(?:language|lang)-([\w+#.-]+)/.exec(names)?.[1] ?? '';
}

/** Text exactly as written inside a code block: line breaks and indentation kept, `<br>` as a break. */
function verbatim(e: HTMLElement): string {
  let out = '';
  const walk = (n: Node) => {
    if (!isElement(n)) out += n.text;
    else if (tagOf(n) === 'br') out += '\n';
    else for (const c of n.childNodes) walk(c);
  };
  for (const c of e.childNodes) walk(c);
  // A newline right after <pre> is not content (HTML drops it); trailing blank lines are not either.
  return out.replace(/^\r?\n/, '').replace(/\s+$/, '');
}

/**
 * Every line after the first of a list item is indented to sit under its text: as wide as the marker,
 * so a list inside "10. " is nested in Markdown too (two spaces are not enough there).
 */
function listItem(marker: string, content: string[]): string {
  const lines = content.flatMap((b) => b.split('\n')).filter((l) => l.trim());
  if (lines.length === 0) return '';
  const indent = ' '.repeat(marker.length);
  // An item that starts with a nested list keeps the nested marker on a line of its own.
  const first = LIST_ITEM.test(lines[0]!) ? [marker.trimEnd(), indent + lines[0]] : [marker + lines[0]];
  return [...first, ...lines.slice(1).map((l) => indent + l)].join('\n');
}

function renderList(list: HTMLElement, ctx: Context): string {
  const ordered = tagOf(list) === 'ol';
  const start = Number.parseInt(list.getAttribute('start') ?? '1', 10);
  let n = Number.isFinite(start) ? start : 1;
  const items: string[] = [];
  // Loose text or stray elements directly in a list (invalid but common) read as items of their own.
  let stray: Node[] = [];
  const add = (content: string[]) => {
    const item = listItem(ordered ? `${n}. ` : '- ', content);
    if (item) {
      items.push(item);
      n++;
    }
  };
  const flushStray = () => {
    if (stray.length) add(renderBlocks(stray, ctx));
    stray = [];
  };
  for (const child of list.childNodes) {
    if (isElement(child) && ctx.notes.inNote.has(child)) continue;
    if (isElement(child) && tagOf(child) === 'li') {
      flushStray();
      add(renderBlocks(child.childNodes, ctx));
    } else stray.push(child);
  }
  flushStray();
  return items.join('\n');
}

/** A definition list: each term on its own line, each definition under it, indented. */
function renderDefinitions(dl: HTMLElement, ctx: Context): string {
  const lines: string[] = [];
  for (const c of elementChildren(dl)) {
    if (ctx.notes.inNote.has(c)) continue;
    const text = renderBlocks(c.childNodes, ctx).join('\n');
    if (!text) continue;
    lines.push(tagOf(c) === 'dd' ? text.replace(/^/gm, '  ') : text);
  }
  return lines.join('\n');
}

class BlockWriter {
  private blocks: string[] = [];
  private inline = '';
  /** The emphasis marks open around the text being written. */
  private readonly emphasis = new Set<string>();

  constructor(private readonly ctx: Context) {}

  finish(): string[] {
    this.flush();
    return this.blocks;
  }

  private flush(): void {
    const text = tidyLines(this.inline);
    if (text) this.blocks.push(text);
    this.inline = '';
  }

  private push(block: string): void {
    this.flush();
    if (block.trim()) this.blocks.push(block);
  }

  walk(n: Node): void {
    if (!isElement(n)) {
      this.inline += n.text.replace(/\s+/g, ' ');
      return;
    }
    const tag = tagOf(n);
    if (this.ctx.notes.inNote.has(n)) return;
    const heading = HEADING.exec(tag);
    if (heading) {
      const text = stripAnchorMarks(inlineText(n).replace(/\s+/g, ' ').trim());
      if (text) this.push(`${'#'.repeat(Number(heading[1]))} ${text}`);
    } else if (tag === 'br') this.inline += '\n';
    else if (tag === 'ul' || tag === 'ol' || tag === 'menu') this.push(renderList(n, this.ctx));
    else if (tag === 'dl') this.push(renderDefinitions(n, this.ctx));
    else if (tag === 'pre') {
      const code = verbatim(n);
      if (code.trim()) this.push(fence(code, codeLanguage(n)));
    } else if (tag === 'blockquote') {
      const inner = renderBlocks(n.childNodes, this.ctx).join('\n\n');
      if (inner) this.push(inner.replace(/^/gm, '> ').replace(/^> $/gm, '>'));
    } else if (tag === 'table') this.table(n);
    else if (INLINE_CODE.has(tag)) this.code(n);
    else if (tag === 'a') this.link(n);
    else if (EMPHASIS[tag] && !this.emphasis.has(EMPHASIS[tag]) && !holdsBlocks(n)) {
      // Bold inside bold is only bold: `**a **b****` would not read as Markdown.
      this.emphasis.add(EMPHASIS[tag]);
      this.wrap(n, EMPHASIS[tag]);
      this.emphasis.delete(EMPHASIS[tag]);
    } else if (tag === 'hr') this.flush();
    else if (BLOCK_TAGS.has(tag)) {
      this.flush();
      for (const c of n.childNodes) this.walk(c);
      this.flush();
    } else for (const c of n.childNodes) this.walk(c);
  }

  /** The children's inline Markdown between two marks, or left bare when it spans lines. */
  private wrap(e: HTMLElement, marks: string, after = marks): void {
    const before = this.inline;
    this.inline = '';
    for (const c of e.childNodes) this.walk(c);
    const inner = this.inline;
    this.inline = before;
    let text = inner.trim();
    // Brackets in a link's text would end it early (code spans keep theirs: escapes show there).
    if (marks === '[' && !text.includes('`')) text = text.replace(/[[\]]/g, '\\$&');
    if (!text || inner.includes('\n')) this.inline += inner;
    // White space stays outside the marks: `** bold**` is not bold in Markdown.
    else
      this.inline += `${inner.startsWith(' ') ? ' ' : ''}${marks}${text}${after}${inner.endsWith(' ') ? ' ' : ''}`;
  }

  /** Links and footnote references inside a table's cells, which are written on one line each. */
  private readonly cellInline: InlineWriter = (e, text) => {
    if (tagOf(e) !== 'a') return undefined;
    const label = this.ctx.notes.refs.get(e);
    if (label !== undefined) return `[^${label}]`;
    if (isHeadingAnchor(e)) return '';
    const url = linkTarget(e.getAttribute('href'), this.ctx.base);
    const inner = text(e);
    if (!url || !inner) return undefined;
    return inner === url ? `<${url}>` : `[${inner.replace(/[[\]]/g, '\\$&')}](${url})`;
  };

  private link(a: HTMLElement): void {
    const label = this.ctx.notes.refs.get(a);
    if (label !== undefined) {
      this.inline += `[^${label}]`;
      return;
    }
    // A permalink mark ("¶", "#") beside a heading or a definition is not text.
    if (isHeadingAnchor(a)) return;
    const url = linkTarget(a.getAttribute('href'), this.ctx.base);
    if (!url || holdsBlocks(a)) {
      for (const c of a.childNodes) this.walk(c);
      return;
    }
    const text = a.textContent.replace(/\s+/g, ' ').trim();
    if (text === url || `mailto:${text}` === url) this.inline += `<${url}>`;
    else this.wrap(a, '[', `](${url})`);
  }

  private table(table: HTMLElement): void {
    const piped = isDataTable(table, this.ctx.document) ? pipeTable(table, this.cellInline) : undefined;
    if (piped !== undefined) {
      this.push(piped);
      return;
    }
    // A layout table is only a frame: its caption and cells are read as the blocks they hold.
    this.flush();
    for (const c of elementChildren(table)) if (tagOf(c) === 'caption') this.walk(c);
    for (const row of tableRows(table)) {
      for (const cell of rowCells(row)) {
        for (const c of cell.childNodes) this.walk(c);
        this.flush();
      }
    }
  }

  /** Inline code in backticks; code with line breaks outside <pre> (some sites do that) is a block. */
  private code(e: HTMLElement): void {
    const raw = verbatim(e);
    if (raw.includes('\n') && !this.inline.trim()) {
      this.push(fence(raw, codeLanguage(e)));
      return;
    }
    const text = raw.replace(/\s+/g, ' ').trim();
    if (!text) return;
    this.inline += text.includes('`') ? text : `\`${text}\``;
  }
}

const EMPHASIS: Record<string, string> = { b: '**', strong: '**', i: '*', em: '*' };

/** Whether an inline element wraps blocks (a card: a link around a heading and a paragraph). */
function holdsBlocks(e: HTMLElement): boolean {
  return e.childNodes.some((c) => isElement(c) && (BLOCK_TAGS.has(tagOf(c)) || holdsBlocks(c)));
}

/**
 * A link's target as written in Markdown: resolved against the page's address when there is one; none
 * for links within the page (`#…`) and scripts. Spaces and brackets are escaped so the link stays whole.
 */
function linkTarget(href: string | undefined, base: string | undefined): string | undefined {
  const raw = href?.trim();
  if (!raw || raw.startsWith('#') || /^javascript:/i.test(raw)) return undefined;
  let url = raw;
  if (base) {
    try {
      url = new URL(raw, base).href;
    } catch {
      return undefined;
    }
    if (url.split('#')[0] === base.split('#')[0]) return undefined;
  }
  return url.replace(/\s/g, '%20').replace(/\(/g, '%28').replace(/\)/g, '%29');
}

/** The text of an element with a space at every line break and block boundary inside it. */
function inlineText(e: HTMLElement): string {
  let out = '';
  const walk = (n: Node) => {
    if (!isElement(n)) out += n.text;
    else if (!isHeadingAnchor(n)) {
      if (tagOf(n) === 'br' || BLOCK_TAGS.has(tagOf(n))) out += ' ';
      for (const c of n.childNodes) walk(c);
    }
  };
  walk(e);
  return out;
}
