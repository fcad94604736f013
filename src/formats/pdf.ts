import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { TextItem } from 'pdfjs-dist/types/src/display/api.js';
import { FormatError } from './errors.js';

export interface PdfText {
  /** From the document's metadata (XMP dc:title, else Info Title), when it names the document. */
  title?: string;
  /** The text of each page in reading order: lines, with a blank line between paragraphs. */
  pages: string[];
}

export const PDF_ENCRYPTED = 'The PDF is encrypted (password-protected), so its text cannot be read.';
export const PDF_NO_TEXT = 'The PDF has no text layer (scanned or image-only); it would need OCR.';
const damaged = (why: string) => `The PDF is damaged or incomplete: ${why.replace(/\.$/, '')}.`;

/** The part of a pdf.js text item this module reads (marked-content items have no `str`). */
export type TextPiece = Pick<TextItem, 'str' | 'dir' | 'transform' | 'width' | 'height' | 'hasEOL'>;

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
let pdfjs: Promise<PdfJs> | undefined;
// Loaded on first use: pdf.js is large, and most commands never read a PDF.
const loadPdfJs = () => {
  pdfjs ??= import('pdfjs-dist/legacy/build/pdf.mjs');
  return pdfjs;
};

// CJK fonts need Adobe's CMaps and the 14 standard fonts need their metrics; pdf.js reads both from disk
// in Node (a path with a trailing slash), and only when a document uses them.
let assets: { cMapUrl: string; standardFontDataUrl: string } | undefined;
function assetPaths() {
  if (!assets) {
    const root = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
    assets = { cMapUrl: `${join(root, 'cmaps')}/`, standardFontDataUrl: `${join(root, 'standard_fonts')}/` };
  }
  return assets;
}

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

interface Line {
  text: string;
  y: number;
  height: number;
  endX: number;
}

/**
 * Joins pdf.js text items into lines: a new line where pdf.js marks an end of line, where the baseline
 * moves by more than half the text height, or where left-to-right text jumps back to the left.
 */
function toLines(items: TextPiece[]): Line[] {
  const lines: Line[] = [];
  let current: Line | undefined;
  let breakNext = true;
  for (const item of items) {
    if (!item.str) {
      breakNext ||= item.hasEOL;
      continue;
    }
    const x = item.transform[4] ?? 0;
    const y = item.transform[5] ?? 0;
    const height = item.height || Math.hypot(item.transform[2] ?? 0, item.transform[3] ?? 0);
    const sameLine =
      current !== undefined &&
      !breakNext &&
      Math.abs(y - current.y) <= Math.max(current.height, height) / 2 &&
      (item.dir === 'rtl' || x >= current.endX - Math.max(height, 1));
    if (current && sameLine) {
      // pdf.js sends spaces as items of their own; add one only where a visible gap has none.
      const gap = x - current.endX;
      if (gap > height * 0.15 && !/\s$/.test(current.text) && !/^\s/.test(item.str)) current.text += ' ';
      current.text += item.str;
      current.height = Math.max(current.height, height);
    } else {
      current = { text: item.str, y, height, endX: x };
      lines.push(current);
    }
    current.endX = x + item.width;
    breakNext = item.hasEOL;
  }
  return lines;
}

/** The most common line spacing on the page (to half a point; the smaller on a tie), 0 with one line. */
function usualGap(lines: Line[]): number {
  const counts = new Map<number, number>();
  for (const [i, line] of lines.entries()) {
    const gap = i > 0 ? Math.round((lines[i - 1]!.y - line.y) * 2) / 2 : 0;
    if (gap > 0) counts.set(gap, (counts.get(gap) ?? 0) + 1);
  }
  let usual = 0;
  let most = 0;
  for (const [gap, count] of counts) {
    if (count > most || (count === most && gap < usual)) [usual, most] = [gap, count];
  }
  return usual;
}

/**
 * The page's text: lines in order, a blank line where the gap to the next line is clearly wider than the
 * page's usual line spacing (a paragraph), or where the text jumps back up (a new column or block).
 */
export function pageText(items: TextPiece[]): string {
  const lines = toLines(items)
    .map((l) => ({ ...l, text: l.text.replace(/[^\S\n]+/g, ' ').trim() }))
    .filter((l) => l.text);
  const usual = usualGap(lines);
  let out = '';
  for (const [i, line] of lines.entries()) {
    const prev = lines[i - 1];
    if (prev) {
      const gap = prev.y - line.y;
      const paragraph = gap < 0 || gap > Math.max(usual * 1.3, Math.min(prev.height, line.height) * 1.5);
      out += paragraph ? '\n\n' : '\n';
    }
    out += line.text;
  }
  return out;
}

/**
 * Reads the text of a PDF, page by page. Throws a FormatError that says whether the file is encrypted,
 * damaged or incomplete, or has no text to read.
 */
export async function readPdf(data: Uint8Array, options: { signal?: AbortSignal } = {}): Promise<PdfText> {
  if (data.length === 0) throw new FormatError(damaged('the file is empty (0 bytes)'));
  const { getDocument } = await loadPdfJs();
  options.signal?.throwIfAborted();
  const task = getDocument({
    // A copy: pdf.js refuses Buffers and may transfer (detach) the array it is given.
    data: new Uint8Array(data),
    ...assetPaths(),
    // Text only: no font loading, no eval of font programs, no canvas.
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    verbosity: 0,
  });
  try {
    let doc: Awaited<typeof task.promise>;
    try {
      doc = await task.promise;
    } catch (error) {
      const { name, message } = error as Error;
      if (name === 'PasswordException') throw new FormatError(PDF_ENCRYPTED);
      throw new FormatError(damaged(message || name));
    }
    const pages: string[] = [];
    try {
      for (let n = 1; n <= doc.numPages; n++) {
        options.signal?.throwIfAborted();
        const page = await doc.getPage(n);
        const content = await page.getTextContent();
        pages.push(pageText(content.items.filter((i): i is TextItem => 'str' in i)));
        page.cleanup();
      }
    } catch (error) {
      if (options.signal?.aborted) throw error;
      throw new FormatError(damaged((error as Error).message));
    }
    if (!pages.some((p) => /[\p{L}\p{N}]/u.test(p))) throw new FormatError(PDF_NO_TEXT);
    const { info, metadata } = await doc.getMetadata().catch(() => ({ info: {}, metadata: null }));
    const title = usableTitle(metadata?.get('dc:title')) ?? usableTitle((info as { Title?: unknown }).Title);
    return title ? { title, pages } : { pages };
  } finally {
    await task.destroy();
  }
}

/** The pages' text, each after a `[Page n]` line, so a reader (or a citation) can say where a fact is. */
export function formatPdfText(pages: string[]): string {
  return pages.map((text, i) => (text ? `[Page ${i + 1}]\n${text}` : `[Page ${i + 1}]`)).join('\n\n');
}
