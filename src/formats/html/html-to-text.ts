import type { HTMLElement } from 'node-html-parser';
import { classAndId, dropNonText, parseHtml, prune, stripAnchorMarks, tagOf } from './dom.js';
import { trimEdges } from './edges.js';
import { jsonLdArticleBody } from './json-ld.js';
import { cleanConditionally, pickContent } from './main-content.js';
import { renderMarkdown } from './markdown.js';
import { dropChrome } from './navigation.js';

// The entry points: a web page's article as light Markdown (read_url, HTML sources); a local HTML file
// whole (the user's own document: only its site navigation is left out); and a whole converted document
// as Markdown (DOCX and the like, where every part is content).

export interface Extracted {
  title: string;
  text: string;
}

export function extractTitle(root: HTMLElement): string {
  const og = root.querySelector('meta[property="og:title"]')?.getAttribute('content');
  const title = og || root.querySelector('title')?.textContent || root.querySelector('h1')?.textContent || '';
  return stripAnchorMarks(title.replace(/\s+/g, ' ').trim());
}

/**
 * The page's title and its main content as light Markdown, without navigation and other chrome. `url`:
 * the page's address, against which its relative links are resolved.
 */
export function extractHtml(html: string, url?: string): Extracted {
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
    const text = trimEdges(renderMarkdown(content, { base: url }));
    if (text.length > best.length) best = text;
    if (best.length >= 500) break;
  }
  // When the visible HTML holds much less than the page's own structured article text, the article was
  // meant to be rendered by a script: trust the structured text.
  const structured = jsonLdArticleBody(html);
  if (structured && structured.length > best.length * 1.5) best = structured;
  return { title, text: best };
}

const clean = (text: string | undefined) => stripAnchorMarks((text ?? '').replace(/\s+/g, ' ').trim());

/**
 * A document's title: its one <h1>, the page's own heading ("Visitor Parking" in "Intranet · Parking");
 * with several (a site's name and the page's, or one per chapter), its <title>, or the <h1> that the
 * <title> repeats with the site's name around it; without either, its first heading. Empty when it has
 * none of these.
 */
export function documentTitle(root: HTMLElement): string {
  const title = clean(root.querySelector('title')?.textContent);
  const all = root.querySelectorAll('h1').filter((h) => clean(h.textContent));
  // A site's name set as an <h1> in its header or menu bar (mdBook's "menu-title") is not the page's.
  const own = all.filter((h) => !inSiteChrome(h));
  const h1s = (own.length ? own : all).map((h) => clean(h.textContent));
  if (h1s.length === 1) return h1s[0]!;
  const named = h1s.find((h) => title.includes(h));
  if (named) return named;
  if (title) return title;
  const heading = root.querySelectorAll('h1, h2, h3, h4, h5, h6').find((h) => clean(h.textContent));
  return heading ? clean(heading.textContent) : '';
}

const CHROME_NAMES =
  /(?:^|[\s_-])(?:menu\w*|nav\w*|header|masthead|banner|brand|logo|site-?(?:title|name))(?:$|[\s_-])/i;

/** Whether an element is, or stands inside, the site's header, menu or navigation rather than the page. */
function inSiteChrome(e: HTMLElement): boolean {
  const path: HTMLElement[] = [];
  for (let n: HTMLElement | null = e; n && tagOf(n) !== 'body'; n = n.parentNode as HTMLElement | null)
    path.push(n);
  // An article's or the main content's own header holds the page's title.
  if (path.some((n) => tagOf(n) === 'article' || tagOf(n) === 'main' || n.getAttribute?.('role') === 'main'))
    return false;
  for (const n of path) {
    const tag = tagOf(n);
    if (tag === 'header' || tag === 'nav') return true;
    if (/^(banner|navigation)$/i.test(n.getAttribute?.('role') ?? '')) return true;
    if (CHROME_NAMES.test(classAndId(n))) return true;
  }
  return false;
}

/**
 * A local HTML file whole, as light Markdown: every heading, paragraph, list, table and footnote. Only
 * what no reader reads is left out: scripts, hidden elements, form controls and the site's navigation
 * bars (see navigation.ts); the main-content heuristics for web pages are never applied.
 */
export function readHtmlDocument(html: string): Extracted {
  const root = parseHtml(html);
  const body = root.querySelector('body') ?? root;
  dropNonText(body);
  dropChrome(body);
  // After the chrome is gone: a heading's button ("Copy item path") is not part of its title.
  const title = documentTitle(root);
  return { title, text: renderMarkdown([body]) };
}

/** A whole HTML document or fragment (a converted Word file) as light Markdown: no part is boilerplate. */
export function htmlToMarkdown(html: string): string {
  const root = parseHtml(html);
  const body = root.querySelector('body') ?? root;
  dropNonText(body);
  return renderMarkdown([body], { document: true });
}
