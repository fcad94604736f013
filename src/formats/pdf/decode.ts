import type { Line } from './layout.js';

// A text layer that does not decode: fonts without a Unicode mapping give their glyph codes, which come
// out as control characters, private-use characters or U+FFFD. Such a page has text to a program and
// none to a reader; it needs OCR, as a scanned page does.

// Control characters (tab aside: it separates cells), private use, and the replacement character.
const JUNK = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\ue000-\uf8ff\ufffd]|[\udb80-\udbff][\udc00-\udfff]/g;
const ANY_JUNK = new RegExp(JUNK.source);
const VISIBLE = /[^\s]/g;

/** Whether a page's lines are mostly undecodable glyph codes (a third of their visible characters or more). */
export function undecodable(lines: readonly Line[]): boolean {
  // Most pages have no junk at all: one test each line, before counting anything.
  if (!lines.some((l) => ANY_JUNK.test(l.text))) return false;
  let junk = 0;
  let visible = 0;
  for (const { text } of lines) {
    junk += text.match(JUNK)?.length ?? 0;
    visible += text.match(VISIBLE)?.length ?? 0;
  }
  return visible >= 20 && junk >= visible / 3;
}

/** "2", "2–23", "2–5, 9 and 12–14": page numbers (1-based, ascending) as ranges. */
export function pageRanges(pages: readonly number[]): string {
  const ranges: string[] = [];
  for (let i = 0; i < pages.length; ) {
    let j = i;
    while (j + 1 < pages.length && pages[j + 1] === pages[j]! + 1) j++;
    ranges.push(j > i ? `${pages[i]}–${pages[j]}` : `${pages[i]}`);
    i = j + 1;
  }
  return ranges.length > 1 ? `${ranges.slice(0, -1).join(', ')} and ${ranges.at(-1)}` : (ranges[0] ?? '');
}

/** What to tell a reader about the pages that cannot be decoded. */
export function undecodableMessage(pages: readonly number[]): string {
  const which = pages.length === 1 ? `page ${pageRanges(pages)}` : `pages ${pageRanges(pages)}`;
  return `The text layer of ${which} cannot be decoded (its fonts map glyphs to no characters); it would need OCR.`;
}
