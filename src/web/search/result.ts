import { parse } from 'node-html-parser';

/** One web search hit, whichever backend found it. */
export interface SearchResult {
  title: string;
  url: string;
  /** A short excerpt, plain text. */
  snippet: string;
  /** Page text the backend sent along with the result (Tavily's raw content); absent otherwise. */
  content?: string;
  /** When the page was published, as the backend gives it (ISO 8601); absent when it gives none. */
  published?: string;
}

/** Collapses runs of whitespace (snippets arrive with line breaks from the page layout). */
export const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();

/**
 * Brave marks matches with `<strong>` and escapes entities; SearXNG engines may pass highlighting through.
 * The model wants plain text, so markup goes and every entity (named or numeric) is decoded.
 */
export function plain(text: string): string {
  if (!/[<&]/.test(text)) return oneLine(text);
  return oneLine(parse(text).textContent);
}
