import type { LocatedSentence } from './sentences.js';

// A link that scrolls to the quote: a URL with a text fragment (WICG scroll-to-text-fragment,
// `#:~:text=[prefix-,]start[,end][,-suffix]`). Each part is percent-encoded, `-`, `&` and `,` included,
// since those three are the directive's own syntax.

const encodePart = (text: string): string => encodeURIComponent(text).replace(/-/g, '%2D');

/** Words a browser would show: Markdown marks and table pipes are not on the page. */
const shown = (text: string): string[] =>
  text
    .replace(/[*_`#>|]/g, ' ')
    .split(/\s+/)
    .filter(Boolean);

/** How many words a start or an end holds when the quote is too long to give whole. */
const EDGE_WORDS = 5;

export function textFragment(quote: LocatedSentence[]): string {
  const first = quote[0]!;
  const last = quote.at(-1)!;
  // A table row: its first and last cells (a text directive's start and end may lie in different cells).
  const startText = first.cells ? first.cells[0]! : first.text;
  const endText = last.cells ? last.cells.at(-1)! : last.text;
  const startWords = shown(startText);
  const endWords = shown(endText);
  if (quote.length === 1 && !first.cells && startWords.length <= EDGE_WORDS * 2)
    return `text=${encodePart(startWords.join(' '))}`;
  const start = startWords.slice(0, EDGE_WORDS).join(' ');
  const end = endWords.slice(-EDGE_WORDS).join(' ');
  if (quote.length === 1 && first.cells && first.cells.length === 1) return `text=${encodePart(start)}`;
  return `text=${encodePart(start)},${encodePart(end)}`;
}

/** The page's URL with the fragment directive; an existing `#fragment` is kept before it. */
export function linkTo(url: string, quote: LocatedSentence[]): string {
  const directive = `:~:${textFragment(quote)}`;
  const hash = url.indexOf('#');
  if (hash < 0) return `${url}#${directive}`;
  // A directive already on the URL is replaced, not added to.
  const base = url.slice(0, hash);
  const fragment = url.slice(hash + 1).split(':~:')[0];
  return `${base}#${fragment}${directive}`;
}
