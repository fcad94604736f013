import type { PDFDocumentProxy } from 'pdfjs-dist/types/src/display/api.js';
import type { Line } from './layout.js';

// Headings from the document's own structure: its outline (bookmarks) when it has one, else lines set
// clearly larger than the body text. Never from what a line of text starts with.

export interface HeadedLine extends Line {
  /** 1 to 6 for a heading. */
  heading?: number;
}

interface Bookmark {
  title: string;
  level: number;
  /** 0-based page index. */
  page: number;
  /** The y the bookmark opens at, when it says. */
  top?: number;
}

/** Outlines larger than this are read only this far: each entry may cost a lookup in the file. */
const MAX_BOOKMARKS = 3000;

type OutlineItem = Awaited<ReturnType<PDFDocumentProxy['getOutline']>>[number];

/** The outline's entries in order, each with its depth and the page it opens; [] without an outline. */
export async function readOutline(doc: PDFDocumentProxy): Promise<Bookmark[]> {
  const outline = await doc.getOutline().catch(() => null);
  if (!outline?.length) return [];
  const out: Bookmark[] = [];
  const visit = async (items: OutlineItem[], level: number) => {
    for (const item of items) {
      if (out.length >= MAX_BOOKMARKS) return;
      try {
        const dest = typeof item.dest === 'string' ? await doc.getDestination(item.dest) : item.dest;
        const ref = dest?.[0];
        const page =
          typeof ref === 'number' ? ref : ref && typeof ref === 'object' ? await doc.getPageIndex(ref) : -1;
        const title = item.title.replace(/\s+/g, ' ').trim();
        const top = dest?.[1]?.name === 'XYZ' && typeof dest[3] === 'number' ? dest[3] : undefined;
        if (title && page >= 0) out.push({ title, level: Math.min(level, 6), page, top });
      } catch {
        // A bookmark pointing nowhere is left out; the rest of the outline still counts.
      }
      if (item.items?.length) await visit(item.items, level + 1);
    }
  };
  await visit(outline, 1);
  return out;
}

const norm = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');

/** How well a line (or two) spells a bookmark title: exact, or with a section number before it. */
function matches(text: string, title: string): boolean {
  const [a, b] = [norm(text), norm(title)];
  if (!a || !b) return false;
  return (
    a === b ||
    (a.endsWith(b) && a.length - b.length <= 8 && /^[\p{N}.ivxlcdm]*$/iu.test(a.slice(0, -b.length)))
  );
}

/** Marks each bookmark's line on its page as a heading, or adds the title where the bookmark opens. */
export function placeBookmarks(pages: HeadedLine[][], bookmarks: Bookmark[]): void {
  for (const mark of bookmarks) {
    const lines = pages[mark.page];
    if (!lines) continue;
    const from =
      mark.top === undefined
        ? 0
        : Math.max(
            0,
            lines.findIndex((l) => l.y <= mark.top! + l.size),
          );
    let found = -1;
    for (let i = from; i < lines.length && found < 0; i++) {
      if (lines[i]!.heading) continue;
      if (matches(lines[i]!.text, mark.title)) found = i;
      else if (lines[i + 1] && matches(`${lines[i]!.text} ${lines[i + 1]!.text}`, mark.title)) {
        lines[i]!.text += ` ${lines[i + 1]!.text}`;
        lines.splice(i + 1, 1);
        found = i;
      }
    }
    if (found >= 0) lines[found]!.heading = mark.level;
    else
      lines.splice(from, 0, {
        text: mark.title,
        y: mark.top ?? 0,
        size: 0,
        paragraph: true,
        heading: mark.level,
      });
  }
}

const LONGEST_HEADING = 150;

/** The font size most characters are set in. */
function bodySize(pages: Line[][]): number {
  const chars = new Map<number, number>();
  for (const lines of pages)
    for (const l of lines) {
      const size = Math.round(l.size * 2) / 2;
      chars.set(size, (chars.get(size) ?? 0) + l.text.length);
    }
  let body = 0;
  let most = 0;
  for (const [size, n] of chars) if (n > most) [body, most] = [size, n];
  return body;
}

/** The title as set on the first page with text: its largest line, when clearly larger than the body text. */
export function titleBySize(pages: Line[][]): string | undefined {
  const first = pages.find((lines) => lines.length);
  if (!first) return undefined;
  const top = first.reduce((a, b) => (b.size > a.size ? b : a));
  return top.size >= bodySize(pages) * 1.3 && /\p{L}/u.test(top.text) ? top.text.slice(0, 200) : undefined;
}

/**
 * Without an outline: lines set at least 15% larger than the body text (the size most characters
 * have) are headings, the largest size level 1. A heading set over two lines becomes one.
 */
export function markSizeHeadings(pages: HeadedLine[][]): void {
  const body = bodySize(pages);
  const isHeading = (l: Line) =>
    l.size >= body * 1.15 && l.text.length <= LONGEST_HEADING && /\p{L}.*\p{L}/u.test(l.text);
  const sizes = [
    ...new Set(
      pages
        .flat()
        .filter(isHeading)
        .map((l) => Math.round(l.size * 2) / 2),
    ),
  ].sort((a, b) => b - a);
  const level = (l: Line) => Math.min(sizes.indexOf(Math.round(l.size * 2) / 2) + 1, 4);
  for (const lines of pages) {
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      if (!isHeading(line)) continue;
      const next = lines[i + 1];
      if (next && !next.paragraph && isHeading(next) && level(next) === level(line)) {
        line.text += ` ${next.text}`;
        lines.splice(i + 1, 1);
      }
      line.heading = level(line);
    }
  }
}
