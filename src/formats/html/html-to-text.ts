import type { HTMLElement } from 'node-html-parser';
import { dropNonText, parseHtml, prune, stripAnchorMarks } from './dom.js';
import { trimEdges } from './edges.js';
import { jsonLdArticleBody } from './json-ld.js';
import { cleanConditionally, pickContent } from './main-content.js';
import { renderMarkdown } from './markdown.js';

// The entry points: a web page's article as light Markdown (read_url, HTML sources), and a whole
// converted document as Markdown (DOCX and the like, where every part is content).

export interface Extracted {
  title: string;
  text: string;
}

export function extractTitle(root: HTMLElement): string {
  const og = root.querySelector('meta[property="og:title"]')?.getAttribute('content');
  const title = og || root.querySelector('title')?.textContent || root.querySelector('h1')?.textContent || '';
  return stripAnchorMarks(title.replace(/\s+/g, ' ').trim());
}

/** The page's title and its main content as light Markdown, without navigation and other chrome. */
export function extractHtml(html: string): Extracted {
  const root = parseHtml(html);
  const title = extractTitle(root);
  // Strict first; if that leaves too little, the page's structure fooled the class heuristics: relax.
  let best = '';
  for (const strict of [true, false]) {
    const tree = strict ? root : parseHtml(html);
    const body = tree.querySelector('body') ?? tree;
    prune(body, strict);
    const content = pickContent(body);
    for (const c of content) cleanConditionally(c);
    const text = trimEdges(renderMarkdown(content));
    if (text.length > best.length) best = text;
    if (best.length >= 500) break;
  }
  // When the visible HTML holds much less than the page's own structured article text, the article was
  // meant to be rendered by a script: trust the structured text.
  const structured = jsonLdArticleBody(html);
  if (structured && structured.length > best.length * 1.5) best = structured;
  return { title, text: best };
}

/** A whole HTML document or fragment as light Markdown: no part is judged boilerplate. */
export function htmlToMarkdown(html: string): string {
  const root = parseHtml(html);
  const body = root.querySelector('body') ?? root;
  dropNonText(body);
  return renderMarkdown([body]);
}
