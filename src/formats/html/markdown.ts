import type { HTMLElement, Node } from 'node-html-parser';
import { escapeMarkdownLine } from '../escape.js';
import { BLOCK_TAGS, elementChildren, isElement, isHeadingAnchor, stripAnchorMarks, tagOf } from './dom.js';
import { isDataTable, pipeTable, rowCells, tableRows } from './tables.js';

// Light Markdown from HTML: headings with `#`, list items with `- ` or `1. ` one per line (nested lists
// two spaces deeper per level), data tables as pipe tables, code blocks fenced verbatim, quotes with
// `> `, paragraphs separated by a blank line. Links keep their text only; emphasis is dropped.

const HEADING = /^h([1-6])$/;
const INLINE_CODE = new Set(['code', 'kbd', 'samp', 'tt']);
const LIST_ITEM = /^\s*([-*] |\d+\. )/;

/** Writes nodes as Markdown blocks (each a paragraph, heading, list, table, quote or code block). */
export function renderMarkdown(nodes: Node[]): string {
  return renderBlocks(nodes).join('\n\n');
}

function renderBlocks(nodes: Node[]): string[] {
  const r = new BlockWriter();
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

/** Every line after the first of a list item is indented to sit under its text. */
function listItem(marker: string, content: string[]): string {
  const lines = content.flatMap((b) => b.split('\n')).filter((l) => l.trim());
  if (lines.length === 0) return '';
  // An item that starts with a nested list keeps the nested marker on a line of its own.
  const first = LIST_ITEM.test(lines[0]!) ? [marker.trimEnd(), `  ${lines[0]}`] : [marker + lines[0]];
  return [...first, ...lines.slice(1).map((l) => `  ${l}`)].join('\n');
}

function renderList(list: HTMLElement): string {
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
    if (stray.length) add(renderBlocks(stray));
    stray = [];
  };
  for (const child of list.childNodes) {
    if (isElement(child) && tagOf(child) === 'li') {
      flushStray();
      add(renderBlocks(child.childNodes));
    } else stray.push(child);
  }
  flushStray();
  return items.join('\n');
}

/** A definition list: each term on its own line, each definition under it, indented. */
function renderDefinitions(dl: HTMLElement): string {
  const lines: string[] = [];
  for (const c of elementChildren(dl)) {
    const text = renderBlocks(c.childNodes).join('\n');
    if (!text) continue;
    lines.push(tagOf(c) === 'dd' ? text.replace(/^/gm, '  ') : text);
  }
  return lines.join('\n');
}

class BlockWriter {
  private blocks: string[] = [];
  private inline = '';

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
    const heading = HEADING.exec(tag);
    if (heading) {
      const text = stripAnchorMarks(inlineText(n).replace(/\s+/g, ' ').trim());
      if (text) this.push(`${'#'.repeat(Number(heading[1]))} ${text}`);
    } else if (tag === 'br') this.inline += '\n';
    else if (tag === 'ul' || tag === 'ol' || tag === 'menu') this.push(renderList(n));
    else if (tag === 'dl') this.push(renderDefinitions(n));
    else if (tag === 'pre') {
      const code = verbatim(n);
      if (code.trim()) this.push(fence(code, codeLanguage(n)));
    } else if (tag === 'blockquote') {
      const inner = renderBlocks(n.childNodes).join('\n\n');
      if (inner) this.push(inner.replace(/^/gm, '> ').replace(/^> $/gm, '>'));
    } else if (tag === 'table') this.table(n);
    else if (INLINE_CODE.has(tag)) this.code(n);
    else if (tag === 'hr') this.flush();
    else if (BLOCK_TAGS.has(tag)) {
      this.flush();
      for (const c of n.childNodes) this.walk(c);
      this.flush();
    } else for (const c of n.childNodes) this.walk(c);
  }

  private table(table: HTMLElement): void {
    if (isDataTable(table)) {
      this.push(pipeTable(table));
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
