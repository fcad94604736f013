import { PATH_SEPARATOR, splitPassages } from '../documents/passages.js';

// A source's text as the sentences evidence can quote, each with where it is: the heading path of its
// passage, and for a PDF the page (its `[Page n]` markers end the path as "Page n").

export interface LocatedSentence {
  /** The sentence or table row, whitespace collapsed, Markdown emphasis and link syntax removed. */
  text: string;
  headingPath: string;
  page?: number;
  /** Cells of a table row (for a text fragment's start and end); absent for prose. */
  cells?: string[];
}

const TABLE_RULE = /^\s*\|?\s*:?-{3,}/;
const LIST_ITEM = /^\s*(?:[-*+]|\d+[.)]|\(\d+\))\s+/;
const PAGE_AT_END = new RegExp(`(?:^|${PATH_SEPARATOR})Page (\\d+)$`);
// Words whose period never ends a sentence: "Dr. Jones", "e.g. refunds", "Sept. 30".
const ABBREVIATION =
  /(?:^|[\s(])(?:[A-Z]|Dr|Mr|Mrs|Ms|Prof|St|No|Nos|vs|etc|approx|e\.g|i\.e|U\.S|U\.K|Inc|Ltd|Co|Corp|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec|Fig|p|pp)\.$/;

export const plain = (text: string): string =>
  text
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
    .replace(/\*\*|__|`/g, '')
    .replace(/\s+/g, ' ')
    .trim();

/** Prose split at sentence ends, never after a known abbreviation or an initial. */
export function splitSentences(paragraph: string): string[] {
  const pieces = paragraph.split(/(?<=[.!?]["')\]]*)\s+(?=["'([]?[\p{Lu}\p{N}$€£])/u);
  const out: string[] = [];
  for (const piece of pieces) {
    const last = out.at(-1);
    if (last !== undefined && ABBREVIATION.test(last)) out[out.length - 1] = `${last} ${piece}`;
    else out.push(piece);
  }
  return out.map((s) => s.trim()).filter(Boolean);
}

export function locatedSentences(text: string): LocatedSentence[] {
  const out: LocatedSentence[] = [];
  for (const passage of splitPassages(text)) {
    const page = PAGE_AT_END.exec(passage.headingPath)?.[1];
    const at = { headingPath: passage.headingPath, ...(page ? { page: Number(page) } : {}) };
    let paragraph: string[] = [];
    const end = () => {
      for (const s of splitSentences(plain(paragraph.join(' ')))) out.push({ text: s, ...at });
      paragraph = [];
    };
    for (const line of passage.text.split('\n')) {
      const trimmed = line.trim();
      if (!trimmed || trimmed === '[…]') {
        end();
        continue;
      }
      if (trimmed.startsWith('|')) {
        end();
        if (TABLE_RULE.test(trimmed)) continue;
        const cells = trimmed
          .split('|')
          .map((c) => plain(c))
          .filter(Boolean);
        if (cells.length) out.push({ text: cells.join(' | '), cells, ...at });
        continue;
      }
      // A list item starts its own sentence; wrapped lines of a paragraph (PDF lines) join up.
      if (LIST_ITEM.test(line)) {
        end();
        paragraph.push(line.replace(LIST_ITEM, ''));
        continue;
      }
      paragraph.push(trimmed);
    }
    end();
  }
  return out;
}
