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
      if (lines[i]!.heading || lines[i]!.table) continue;
      if (matches(lines[i]!.text, mark.title)) found = i;
      else if (lines[i + 1] && matches(`${lines[i]!.text} ${lines[i + 1]!.text}`, mark.title)) {
        lines[i]!.text += ` ${lines[i + 1]!.text}`;
        lines.splice(i + 1, 1);
        found = i;
      }
    }
    if (found >= 0) {
      lines[found]!.heading = mark.level;
      // "1<tab>Introduction": a section number set apart from its title is one heading.
      lines[found]!.text = lines[found]!.text.replace(/\t/g, ' ');
    } else
      lines.splice(from, 0, {
        text: mark.title,
        y: mark.top ?? 0,
        x: 0,
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

/** The first page with text and its title lines: its largest lines, when larger than the body text. */
function titleLines(pages: Line[][]): { page: Line[]; from: number; to: number } | undefined {
  const page = pages.find((lines) => lines.length);
  if (!page) return undefined;
  const top = Math.max(...page.map((l) => l.size));
  if (top < bodySize(pages) * 1.15) return undefined;
  const from = page.findIndex((l) => l.size >= top * 0.97 && /\p{L}/u.test(l.text));
  if (from < 0) return undefined;
  // A title set over two or three lines, each as large.
  let to = from + 1;
  while (to < page.length && to - from < 3 && page[to]!.size >= top * 0.97 && !page[to]!.paragraph) to++;
  return { page, from, to };
}

/** The title as set on the first page with text: its largest lines, when clearly larger than the body text. */
export function titleBySize(pages: Line[][]): string | undefined {
  const found = titleLines(pages);
  if (!found) return undefined;
  const text = found.page
    .slice(found.from, found.to)
    .map((l) => l.text.replace(/\t/g, ' '))
    .join(' ');
  return text.slice(0, 300);
}

// Lines that are set large without being headings: form fields ("PRENOM(S) :"), numbers, author lists
// (footnote marks, several commas, "and" between names with affiliation digits), e-mail addresses.
const FIELD = /:\s*$|\s:\s/;
const AUTHORS = /[∗*†‡§¶]|\S@\S|(?:,.*){3}/u;
// Names with affiliation marks: "Kadatch1 and Jenkins2".
const MARKED_NAME = /\p{Ll}\d+(?:,\d+)*(?=[\s,]|$)/gu;

function mayBeHeading(text: string): boolean {
  if (text.length > LONGEST_HEADING || FIELD.test(text) || AUTHORS.test(text)) return false;
  if ((text.match(MARKED_NAME)?.length ?? 0) >= 2) return false;
  const letters = text.match(/\p{L}/gu)?.length ?? 0;
  const digits = text.match(/\p{N}/gu)?.length ?? 0;
  return letters >= 2 && digits <= letters;
}

/**
 * Without an outline: lines set at least 15% larger than the body text (the size most characters
 * have) are headings, the largest size level 1, when they also stand apart (a gap above, or the top of
 * a page or column) and read as a heading (not a form field, a number or a list of authors). A size that
 * most of a page is set in (a form, a slide) is not a heading size. A heading set over two lines becomes
 * one. The lines under a title on the first page (authors, affiliations, a date) are not headings.
 */
export function markSizeHeadings(pages: HeadedLine[][]): void {
  const body = bodySize(pages);
  const round = (l: Line) => Math.round(l.size * 2) / 2;
  const chars = new Map<number, number>();
  let total = 0;
  for (const lines of pages)
    for (const l of lines) {
      chars.set(round(l), (chars.get(round(l)) ?? 0) + l.text.length);
      total += l.text.length;
    }
  const headingSize = (l: Line) => l.size >= body * 1.15 && (chars.get(round(l)) ?? 0) <= total * 0.3;
  const sizes = [
    ...new Set(
      pages
        .flat()
        .filter((l) => headingSize(l) && mayBeHeading(l.text))
        .map(round),
    ),
  ].sort((a, b) => b - a);
  const level = (l: Line) => Math.min(sizes.indexOf(round(l)) + 1, 4);
  const title = titleLines(pages);
  for (const lines of pages) {
    let from = 0;
    if (title && lines === title.page) {
      // The title is a heading; the lines after it down to the body text are its byline.
      const head = lines[title.from]!;
      head.heading = 1;
      from = title.to;
      while (from < lines.length && lines[from]!.size > body * 1.05) from++;
      for (let i = title.from + 1; i < title.to; i++) head.text += ` ${lines[i]!.text}`;
      head.text = head.text.replace(/\t/g, ' ');
      lines.splice(title.from + 1, title.to - title.from - 1);
      from -= title.to - title.from - 1;
    }
    for (let i = from; i < lines.length; i++) {
      const line = lines[i]!;
      if (line.table || !headingSize(line) || !mayBeHeading(line.text)) continue;
      if (i > 0 && !line.paragraph && !lines[i - 1]!.heading) continue;
      const next = lines[i + 1];
      if (next && !next.paragraph && headingSize(next) && level(next) === level(line)) {
        line.text += ` ${next.text}`;
        lines.splice(i + 1, 1);
      }
      line.heading = level(line);
      line.text = line.text.replace(/\t/g, ' ');
    }
  }
}

/** A bold heading's most characters and words, and the least a paragraph's first line under it has. */
export const LONGEST_BOLD_HEADING = 80;
const MOST_HEADING_WORDS = 12;
export const PARAGRAPH_LINE = 30;
// A section number set apart from its title: "3.2", "A", "IV".
const SECTION_NUMBER = /^(?:\d+(?:\.\d+)*\.?|[A-Z]|[IVX]+\.?)$/;

/** Whether a bold line reads as a heading by itself: short, a phrase (not a sentence), not a field. */
function boldHeadingText(line: HeadedLine): boolean {
  const parts = line.text.split('\t');
  if (parts.length > 2 || (parts.length === 2 && !SECTION_NUMBER.test(parts[0]!.trim()))) return false;
  const text = parts.join(' ').trim();
  return (
    text.length <= LONGEST_BOLD_HEADING &&
    mayBeHeading(text) &&
    !/[.,;:]$/.test(text) &&
    text.split(/\s+/).length <= MOST_HEADING_WORDS &&
    // Not a digit run with a word or two ("2024 12 31 Total"), which mayBeHeading lets through.
    !/\d\s+\d/.test(text)
  );
}

/**
 * Without an outline, after headings by size: lines set in bold at the body's size or larger are
 * headings when they clearly stand as one — a short phrase (not a form field, a number or a list of
 * authors) with space above it (or at the top of a page or column), followed by a line of ordinary
 * (not bold) paragraph text. On the first page only once the body text has begun, so the bold names
 * under a title are not headings. They rank one level under the deepest size heading.
 */
export function markBoldHeadings(pages: HeadedLine[][]): void {
  const body = bodySize(pages);
  let deepest = 1;
  for (const lines of pages) for (const l of lines) if (l.heading) deepest = Math.max(deepest, l.heading);
  const level = Math.min(deepest + 1, 4);
  let begun = false;
  for (const lines of pages)
    for (const [i, line] of lines.entries()) {
      const next = lines[i + 1];
      if (
        line.bold &&
        begun &&
        !line.heading &&
        !line.table &&
        line.size >= body * 0.95 &&
        (i === 0 || line.paragraph) &&
        next &&
        !next.bold &&
        !next.heading &&
        !next.table &&
        next.text.length >= PARAGRAPH_LINE &&
        boldHeadingText(line)
      ) {
        line.heading = level;
        line.text = line.text.replace(/\t/g, ' ');
      }
      if (!line.heading && line.text.length >= 60) begun = true;
    }
}
