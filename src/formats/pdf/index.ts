import { existsSync } from 'node:fs';
import { FormatError } from '../errors.js';
import { escapeMarkdownLine } from '../escape.js';
import { codeBlock, codeRun, plainMono } from './code.js';
import { undecodable, undecodableMessage } from './decode.js';
import { damaged, openPdf, PDF_NO_TEXT } from './document.js';
import {
  type HeadedLine,
  markBoldHeadings,
  markSizeHeadings,
  placeBookmarks,
  readOutline,
  titleBySize,
} from './headings.js';
import { pageLines, type TextPiece } from './layout.js';
import { type PagesRead, readPages } from './pages.js';
import { dropRunning } from './running.js';
import { findTables, tableMarkdown, untab } from './tables.js';
import { anyBroken, cleanLine, joinHyphenated, systemDictionary, vocabulary } from './words.js';

export type { TextPiece };

export interface PdfText {
  /**
   * The metadata title (XMP dc:title, else Info Title) when it names the document, else the largest
   * line of the first page when it stands out, else a heading on that page.
   */
  title?: string;
  /** Each page read, in reading order, as Markdown: headings, lines, a blank line between paragraphs. */
  pages: string[];
  /** Pages in the document; more than `pages.length` when reading stopped early. */
  pageCount: number;
  /** Why reading stopped before the last page: enough text for the caller, or its time budget spent. */
  stopped?: 'enough' | 'time';
  /** Pages whose text layer cannot be decoded, said for a reader; the first such page says it too. */
  notice?: string;
}

export interface ReadPdfOptions {
  signal?: AbortSignal;
  /** Stop after the page that brings the text to this many characters. */
  maxChars?: number;
  /** Stop after this many milliseconds, with the pages read by then. */
  timeBudgetMs?: number;
  /** The most reading workers (threads) to use; by default one per spare core, up to 3. */
  workers?: number;
}

export { PDF_ENCRYPTED, PDF_NO_TEXT } from './document.js';

// The reading worker, as built (tsc's output): beside this module in dist/formats/pdf/, else in it as seen
// from the bundle (dist/bundle/) or from the sources (tests); without one (dist/ not built) this thread
// reads every page. The same places as src/worker-script.ts looks in, written out here so the bundled PDF
// reader does not share a chunk with the documents' code.
const WORKER_URL = ['./worker.js', '../formats/pdf/worker.js', '../../../dist/formats/pdf/worker.js']
  .map((p) => new URL(p, import.meta.url))
  .find((url) => existsSync(url));

/** Titles that authoring tools write for every document: not a name for this one. */
function usableTitle(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined;
  const title = raw
    .replace(/[\u0000-\u001f\ufff0-\uffff]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^Microsoft (?:Word|PowerPoint|Excel) - /i, '');
  if (!/\p{L}/u.test(title) || title.length > 300) return undefined;
  if (/^(?:untitled|no title|title|(?:document|doc|presentation|book|slide|page)[ _-]?\d*)$/i.test(title))
    return undefined;
  // A file name or path, as many converters set it.
  if (/\.(?:pdf|docx?|pptx?|xlsx?|odt|rtf|txt|tex|dvi|e?ps|indd|qxd|pages|key|html?)$/i.test(title))
    return undefined;
  if (/^(?:[a-z]:\\|\/)\S*$/i.test(title)) return undefined;
  return title;
}

// Three rule characters or more, and nothing else: a lone dash (a cell meaning "none") stays.
const RULE = /^(?:\s*[-_=–—‐─━]){3,}\s*$/;

/** One page's lines as Markdown: headings with `#`, code fenced, other lines escaped so none reads as structure. */
function renderPage(all: HeadedLine[]): string {
  // A rule set as text (a row of dashes or underscores) is decoration, never a Markdown rule.
  const lines = all.filter((l) => l.table || l.heading || l.mono || !RULE.test(l.text));
  let out = '';
  let block = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const prev = lines[i - 1];
    const run = codeRun(lines, i);
    if (prev)
      out +=
        run || block || line.heading || line.paragraph || line.table || prev.heading || prev.table
          ? '\n\n'
          : '\n';
    block = run > 0;
    if (run) {
      out += codeBlock(lines.slice(i, i + run));
      i += run - 1;
    } else if (line.table) out += tableMarkdown(line.table);
    else if (line.heading) out += `${'#'.repeat(line.heading)} ${line.text}`;
    else out += escapeMarkdownLine(line.text);
  }
  return out;
}

const linesOf = (items: TextPiece[]): HeadedLine[] =>
  pageLines(items).map((l) => ({ ...l, text: cleanLine(l.text) }));

/** The page's text from pdf.js text items: lines in reading order, blank lines between paragraphs. */
export function pageText(items: TextPiece[]): string {
  return renderPage(linesOf(items));
}

/**
 * Hyphenated line ends joined through the whole document, in reading order, so a word broken across a
 * column or a page (its footer already gone) is whole again; the document's own words are the judge.
 */
function joinWords(pages: HeadedLine[][]): void {
  const lines = pages.flatMap((page) => page.filter((l) => !l.heading && !l.table && !l.mono));
  const texts = lines.map((l) => l.text);
  if (!anyBroken(texts)) return;
  const joined = joinHyphenated(texts, vocabulary(texts), systemDictionary);
  const emptied = new Set<HeadedLine>();
  for (const [i, line] of lines.entries()) {
    if (joined[i]!.trim()) line.text = joined[i]!;
    else emptied.add(line);
  }
  if (!emptied.size) return;
  for (const page of pages)
    for (let i = page.length - 1; i >= 0; i--) {
      if (!emptied.has(page[i]!)) continue;
      // A line that was only the rest of a word: the next line keeps its paragraph break.
      if (page[i + 1]) page[i + 1]!.paragraph ||= page[i]!.paragraph;
      page.splice(i, 1);
    }
}

/**
 * Reads the text of a PDF, page by page, pages in order (or the first pages, when `maxChars` or
 * `timeBudgetMs` stop it early). Throws a FormatError that says whether the file is encrypted, damaged
 * or incomplete, or has no text to read.
 */
export async function readPdf(data: Uint8Array, options: ReadPdfOptions = {}): Promise<PdfText> {
  options.signal?.throwIfAborted();
  const started = performance.now();
  const { doc, close } = await openPdf(data);
  try {
    options.signal?.throwIfAborted();
    // The outline first: without one, lines set in bold are looked for while the pages are read.
    const bookmarks = await readOutline(doc);
    // The budget counts loading pdf.js and opening the file too; the first page is read whatever is left.
    const { timeBudgetMs } = options;
    const left =
      timeBudgetMs === undefined ? {} : { timeBudgetMs: timeBudgetMs - (performance.now() - started) };
    let read: PagesRead;
    try {
      const bold = !bookmarks.length;
      read = await readPages(doc, data, { ...options, ...left, workerUrl: WORKER_URL, bold });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      throw new FormatError(damaged((error as Error).message));
    }
    const { stopped } = read;
    const pages: HeadedLine[][] = read.pages;
    const unreadable: number[] = [];
    for (const [i, lines] of pages.entries())
      if (undecodable(lines)) {
        unreadable.push(i + 1);
        lines.length = 0;
      }
    // Pages without text before a stop say nothing of the pages after it.
    if (!stopped && !pages.some((p) => p.some((l) => /[\p{L}\p{N}]/u.test(l.text))))
      throw new FormatError(unreadable.length ? undecodableMessage(unreadable) : PDF_NO_TEXT);
    dropRunning(pages);
    plainMono(pages);
    const largest = titleBySize(pages);
    if (bookmarks.length) placeBookmarks(pages, bookmarks);
    else {
      markSizeHeadings(pages);
      markBoldHeadings(pages);
    }
    for (const lines of pages) {
      findTables(lines);
      untab(lines);
    }
    joinWords(pages);
    const notice = unreadable.length ? undecodableMessage(unreadable) : undefined;
    const texts = pages.map(renderPage);
    // The notice stands where the unreadable pages are, so whoever reads the text sees it.
    for (const [i, n] of unreadable.entries()) if (unreadable[i - 1] !== n - 1) texts[n - 1] = `[${notice}]`;
    const { info, metadata } = await doc.getMetadata().catch(() => ({ info: {}, metadata: null }));
    const title =
      usableTitle(metadata?.get('dc:title')) ??
      usableTitle((info as { Title?: unknown }).Title) ??
      largest ??
      pages.find((lines) => lines.length)?.find((l) => l.heading)?.text;
    return {
      ...(title ? { title } : {}),
      pages: texts,
      pageCount: doc.numPages,
      ...(stopped ? { stopped } : {}),
      ...(notice ? { notice } : {}),
    };
  } finally {
    await close();
  }
}

/** The pages' text, each after a `[Page n]` line, so a reader (or a citation) can say where a fact is. */
export function formatPdfText(pages: string[]): string {
  return pages.map((text, i) => (text ? `[Page ${i + 1}]\n${text}` : `[Page ${i + 1}]`)).join('\n\n');
}
