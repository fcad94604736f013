import { PATH_SEPARATOR } from '../../documents/passages.js';
import { sourceSentences } from '../../text.js';

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
/** Markdown links and emphasis out, whitespace collapsed; each step only when the text needs it (speed). */
export function plain(text: string): string {
  let out = text;
  if (out.includes('](')) out = out.replace(/\[([^\]]+)\]\([^)]*\)/g, '$1');
  if (out.includes('**') || out.includes('__') || out.includes('`')) out = out.replace(/\*\*|__|`/g, '');
  if (/\s\s|[\t\n\r\u00a0]/.test(out)) out = out.replace(/\s+/g, ' ');
  return out.trim();
}

/** Prose split at sentence ends, never after a known abbreviation or an initial (one splitter for all checks). */
export const splitSentences = sourceSentences;

const ATX = /^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
const PAGE = /^\[Page (\d+)\]\s*$/;
const FENCE = /^ {0,3}(?:`{3,}|~{3,})/;

/**
 * One pass over the lines (a run checks twenty sources in a few milliseconds): headings and `[Page n]`
 * markers set where the sentences after them are, as document passages do (see passages.ts); prose
 * is split into sentences, wrapped lines joined; each table row and list item stands alone.
 */
export function locatedSentences(text: string): LocatedSentence[] {
  const out: LocatedSentence[] = [];
  const stack: { level: number; title: string }[] = [];
  let page: number | undefined;
  let at: Pick<LocatedSentence, 'headingPath' | 'page'> = { headingPath: '' };
  const where = () => {
    const parts = stack.map((h) => h.title);
    if (page !== undefined) parts.push(`Page ${page}`);
    at = { headingPath: parts.join(PATH_SEPARATOR), ...(page === undefined ? {} : { page }) };
  };
  let paragraph: string[] = [];
  const end = () => {
    if (paragraph.length)
      for (const s of splitSentences(plain(paragraph.join(' ')))) out.push({ text: s, ...at });
    paragraph = [];
  };
  let fence = false;
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (FENCE.test(line)) fence = !fence;
    if (!fence && trimmed.startsWith('#')) {
      const heading = ATX.exec(line);
      if (heading) {
        end();
        const level = heading[1]!.length;
        while (stack.length && stack.at(-1)!.level >= level) stack.pop();
        stack.push({ level, title: plain(heading[2]!) });
        where();
        continue;
      }
    }
    if (!fence && trimmed.startsWith('[')) {
      const marker = PAGE.exec(trimmed);
      if (marker) {
        end();
        page = Number(marker[1]);
        where();
        continue;
      }
    }
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
  return out;
}
