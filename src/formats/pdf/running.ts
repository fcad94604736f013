import type { Line } from './layout.js';

// Running headers and footers: lines at the top or bottom of a page that repeat, at the same height, on
// most pages (a book's title, "Debian Reference 12 / 233", a page number whose digits change, a slide
// deck's navigation bar). They are the layout's, not the text's, and would otherwise interrupt the text
// (a word hyphenated across a page break) and repeat in every passage.

/** Lines this close to the top or bottom of a page's text are candidates. */
const EDGE_LINES = 3;
/** Points two baselines may differ by and still be the same place. */
const SAME_Y = 3;

/** The text with what changes from page to page (numbers, roman page numbers, spacing) taken out. */
export function runningKey(text: string): string {
  return text
    .toLowerCase()
    .replace(/\b[ivxlc]{1,6}\s*$|^\s*[ivxlc]{1,6}\b/g, '#')
    .replace(/\d+/g, '#')
    .replace(/\s+/g, '');
}

interface Candidate {
  page: number;
  line: Line;
  /** The page's top or bottom line. */
  extreme: boolean;
}

/**
 * The lines set apart at the top and at the bottom of a page: those above the widest gap among the top
 * few lines, and below the widest among the bottom few, when that gap is clearly wider than the page's
 * usual line spacing. A page set evenly from top to bottom has none.
 */
function edges(lines: Line[]): Set<Line> {
  const ys = [...new Set(lines.map((l) => l.y))].sort((a, b) => b - a);
  const edge = new Set<Line>();
  if (ys.length < 3) return edge;
  const gaps = ys.slice(1).map((y, i) => ys[i]! - y);
  // The line spacing: a low quantile, as a page of few lines has as many wide gaps as narrow ones.
  const usual = [...gaps].sort((a, b) => a - b)[Math.floor((gaps.length - 1) / 3)]!;
  const widest = (from: number, to: number) => {
    let best = from;
    for (let i = from; i < to; i++) if (gaps[i]! > gaps[best]!) best = i;
    return gaps[best]! >= usual * 1.4 ? best : -1;
  };
  const n = Math.min(EDGE_LINES, gaps.length);
  const top = widest(0, n);
  const bottom = widest(gaps.length - n, gaps.length);
  for (const l of lines)
    if ((top >= 0 && l.y >= ys[top]!) || (bottom >= 0 && l.y <= ys[bottom + 1]!)) edge.add(l);
  return edge;
}

/** The size most characters are set in. */
function bodySize(pages: Line[][]): number {
  const chars = new Map<number, number>();
  for (const lines of pages)
    for (const l of lines)
      chars.set(Math.round(l.size), (chars.get(Math.round(l.size)) ?? 0) + l.text.length);
  return [...chars].reduce((a, b) => (b[1] > a[1] ? b : a), [0, 0])[0];
}

/**
 * A line's keys: a header row set in parts ("Chapter 3. Syntax" at one side, the book's title at the
 * other) is running when one of its parts is.
 */
function keysOf(line: Line): Set<string> {
  const parts = line.text.includes('\t') ? [line.text, ...line.text.split('\t')] : [line.text];
  const keys = new Set(parts.map(runningKey));
  keys.delete('');
  return keys;
}

/**
 * Removes running headers and footers from the pages, in place. A line goes when its text (numbers
 * aside) stands at the same height, set apart at the top or bottom, on at least `max(3, 40%)` of the
 * pages (alternate pages may carry different ones); or, set no larger than the body text, on three
 * pages or more at a height where set-apart lines stand on that many pages (a chapter's name in the
 * header of its pages). Text that also stands in the body of two pages or more (a refrain, a table's
 * rows) stays; once in the body is a title page or the chapter's own heading. Returns how many lines
 * were removed.
 */
export function dropRunning(pages: Line[][]): number {
  const withText = pages.filter((lines) => lines.length).length;
  if (withText < 3) return 0;
  const need = Math.max(3, Math.ceil(withText * 0.4));
  const byKey = new Map<string, Candidate[]>();
  const inBody = new Map<string, Candidate[]>();
  /** Pages with a set-apart line at each (rounded) height. */
  const bands = new Map<number, Set<number>>();
  const bodyLines: Candidate[] = [];
  let longest = 0;
  const add = (map: Map<string, Candidate[]>, key: string, c: Candidate) => {
    const list = map.get(key);
    if (list) list.push(c);
    else map.set(key, [c]);
  };
  for (const [page, lines] of pages.entries()) {
    const edge = edges(lines);
    const ys = lines.map((l) => l.y);
    const [top, bottom] = [Math.max(...ys), Math.min(...ys)];
    const extreme = new Set(lines.filter((l) => l.y === top || l.y === bottom));
    for (const line of lines) {
      if (!edge.has(line)) {
        bodyLines.push({ page, line, extreme: false });
        continue;
      }
      const band = Math.round(line.y);
      bands.set(band, (bands.get(band) ?? new Set()).add(page));
      longest = Math.max(longest, line.text.length);
      for (const key of keysOf(line)) add(byKey, key, { page, line, extreme: extreme.has(line) });
    }
  }
  // Body lines matter only where their text is also at an edge: a line much longer than any edge
  // line is not keyed at all (most of a document's lines).
  for (const c of bodyLines) {
    if (c.line.text.length > longest * 3 + 20) continue;
    for (const key of keysOf(c.line)) if (byKey.has(key)) add(inBody, key, c);
  }
  const bandPages = (y: number) => {
    const found = new Set<number>();
    for (let b = Math.round(y) - SAME_Y; b <= Math.round(y) + SAME_Y; b++)
      for (const page of bands.get(b) ?? []) found.add(page);
    return found.size;
  };
  const body = bodySize(pages);
  const drop = new Set<Line>();
  for (const [key, all] of byKey) {
    // A page number ("12", "- 3 -", "iv") may also stand in the body (an equation's digit, a table
    // cell): there it counts only as the page's very top or bottom line.
    const number = !/\p{L}{2}/u.test(key.replace(/#/g, ''));
    const list = number ? all.filter((c) => c.extreme) : all;
    if (list.length < 3) continue;
    // The heights it stands at (a header and a footer may share a text).
    for (const y of new Set(list.map((c) => Math.round(c.line.y)))) {
      const near = (c: Candidate) => Math.abs(c.line.y - y) <= SAME_Y;
      const here = list.filter(near);
      // At the same height on a page whose margins did not stand apart, it is the same header.
      const [same, elsewhere] = [[] as Candidate[], [] as Candidate[]];
      for (const c of inBody.get(key) ?? []) (near(c) ? same : elsewhere).push(c);
      if (!number && new Set(elsewhere.map((c) => c.page)).size >= 2) continue;
      const onPages = new Set(here.map((c) => c.page)).size;
      const small = here.every((c) => c.line.size <= body * 1.05);
      if (onPages >= need || (onPages >= 3 && small && bandPages(y) >= need))
        for (const c of [...here, ...(number ? [] : same)]) drop.add(c.line);
    }
  }
  if (!drop.size) return 0;
  for (const lines of pages) {
    const kept = lines.filter((l) => !drop.has(l));
    if (kept.length < lines.length) lines.splice(0, lines.length, ...kept);
  }
  return drop.size;
}
