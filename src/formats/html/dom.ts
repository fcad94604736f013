import { type HTMLElement, type Node, NodeType, parse, TextNode } from 'node-html-parser';

// Parsing and the small DOM measurements every part of the extractor shares.

/** Elements that never hold readable text, whatever page or document they are in. */
const NEVER_TEXT = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'canvas',
  'iframe',
  'object',
  'embed',
  'video',
  'audio',
  'link',
  'meta',
  'head',
]);
/** On a web page these are chrome around the article, not the article. */
const NOT_ARTICLE = new Set([
  'form',
  'button',
  'input',
  'select',
  'textarea',
  'nav',
  'footer',
  'aside',
  'dialog',
  'menu',
]);
const DROP_ROLES =
  /^(navigation|banner|contentinfo|complementary|dialog|alertdialog|menu|menubar|search|toolbar)$/i;
const UNLIKELY =
  /-ad-|^ad$|ad-break|adsense|advert|agegate|banner|breadcrumb|byline|combx|comment|community|cookie|consent|cover-wrap|disqus|extra|footer|gdpr|header|legends|masthead|menu|modal|newsletter|outbrain|pager|pagination|popup|promo|related|remark|replies|rss|share|sharing|shoutbox|sidebar|skip|skyscraper|social|sponsor|subscribe|supplemental|taboola|toolbar|trending|widget|yom-remote/i;
const MAYBE = /and|article|body|column|content|main|shadow|story|text|post/i;
const POSITIVE = /article|body|content|entry|hentry|h-entry|main|page|pagination|post|text|blog|story|prose/i;
const NEGATIVE =
  /-ad-|hidden|^hid$| hid$| hid |^hid |banner|byline|caption|combx|comment|com-|contact|credit|foot|footer|footnote|gallery|masthead|media|meta|outbrain|promo|related|scroll|share|shoutbox|sidebar|skyscraper|sponsor|shopping|social|tags|tool|widget|newsletter|subscribe|recirc|signup/i;

/** Elements that start a new line of text. */
export const BLOCK_TAGS = new Set([
  'address',
  'article',
  'blockquote',
  'body',
  'caption',
  'dd',
  'details',
  'div',
  'dl',
  'dt',
  'figcaption',
  'figure',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'li',
  'main',
  'ol',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'tbody',
  'td',
  'tfoot',
  'th',
  'thead',
  'tr',
  'ul',
]);

export const isElement = (n: Node): n is HTMLElement => n.nodeType === NodeType.ELEMENT_NODE;
export const tagOf = (e: HTMLElement) => (e.rawTagName ?? '').toLowerCase();
export const classAndId = (e: HTMLElement) =>
  `${e.getAttribute('class') ?? ''} ${e.getAttribute('id') ?? ''}`;
export const elementChildren = (e: HTMLElement): HTMLElement[] => e.childNodes.filter(isElement);

/**
 * Deeper than this, elements are only text. Malformed pages (thousands of unclosed tags) nest that
 * deep, and every tree walk, node-html-parser's own textContent included, recurses.
 */
const MAX_DEPTH = 1000;

/** Elements that need no closing tag, or that the parser closes by itself at the next sibling. */
const SELF_CLOSING = new Set(
  'area base br col embed hr img input link meta source track wbr p li dt dd tr td th option'.split(' '),
);
/** More elements of one tag than this left open are closed at the end before parsing. */
const MAX_UNCLOSED = 100;

/**
 * The HTML with closing tags added at the end for elements left open by the hundred. node-html-parser
 * mends unclosed elements one at a time, each move costing as much as the tree is deep: on a page with
 * 100,000 unclosed <div>s that takes minutes, while the same page closed parses in seconds.
 */
function closeUnclosed(html: string): string {
  if (html.length < MAX_UNCLOSED * 5) return html;
  const open = new Map<string, number>();
  for (const m of html.matchAll(/<(\/?)([a-zA-Z][\w-]*)/g)) {
    const tag = m[2]!.toLowerCase();
    open.set(tag, (open.get(tag) ?? 0) + (m[1] ? -1 : 1));
  }
  let tail = '';
  for (const [tag, n] of open) if (n > MAX_UNCLOSED && !SELF_CLOSING.has(tag)) tail += `</${tag}>`.repeat(n);
  return tail ? html + tail : html;
}

export function parseHtml(html: string): HTMLElement {
  // <pre> is parsed as elements (its text nodes keep their whitespace), so markup inside code blocks
  // does not leak into the text; script and style bodies are skipped without being read as markup.
  const root = parse(closeUnclosed(html), {
    comment: false,
    lowerCaseTagName: true,
    blockTextElements: { script: false, style: false, noscript: false, template: false },
  });
  capDepth(root);
  return root;
}

/** Replaces what lies below MAX_DEPTH with its text, walking without recursion. */
function capDepth(root: HTMLElement): void {
  const stack: [HTMLElement, number][] = [[root, 0]];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const [e, depth] = item;
    if (depth < MAX_DEPTH) {
      for (const c of e.childNodes) if (isElement(c)) stack.push([c, depth + 1]);
      continue;
    }
    let raw = '';
    const pending: Node[] = [...e.childNodes].reverse();
    for (let n = pending.pop(); n; n = pending.pop()) {
      if (isElement(n)) {
        if (BLOCK_TAGS.has(tagOf(n)) || tagOf(n) === 'br') raw += ' ';
        for (let i = n.childNodes.length - 1; i >= 0; i--) pending.push(n.childNodes[i]!);
      } else raw += n.rawText;
    }
    e.childNodes.length = 0;
    e.appendChild(new TextNode(raw, e));
  }
}

export function classWeight(e: HTMLElement): number {
  let w = 0;
  for (const v of [e.getAttribute('class'), e.getAttribute('id')]) {
    if (!v) continue;
    if (NEGATIVE.test(v)) w -= 25;
    if (POSITIVE.test(v)) w += 25;
  }
  return w;
}

export function textLength(e: HTMLElement): number {
  return e.textContent.replace(/\s+/g, ' ').trim().length;
}

/** A link in a cell of a table with header cells: a value of a data table (an index, a matrix). */
function inDataCell(a: HTMLElement): boolean {
  let cell: HTMLElement | null = a;
  for (let i = 0; cell && i < 4 && tagOf(cell) !== 'td'; i++) cell = cell.parentNode as HTMLElement | null;
  if (!cell || tagOf(cell) !== 'td') return false;
  let table: HTMLElement | null = cell;
  for (let i = 0; table && i < 4 && tagOf(table) !== 'table'; i++)
    table = table.parentNode as HTMLElement | null;
  return !!table && tagOf(table) === 'table' && table.querySelector('th') !== null;
}

export function linkDensity(e: HTMLElement): number {
  const total = textLength(e);
  if (total === 0) return 0;
  let links = 0;
  for (const a of e.querySelectorAll('a')) {
    const href = a.getAttribute('href') ?? '';
    links += textLength(a) * (href.startsWith('#') || inDataCell(a) ? 0.3 : 1);
  }
  return links / total;
}

const ANCHOR_TEXT = /^(?:#|¶|§|🔗|⚓|link|permalink|anchor)?$/iu;

/** A heading's own permalink (`#`, `¶`, "permalink"): not part of the heading's text. */
export function isHeadingAnchor(e: HTMLElement): boolean {
  if (tagOf(e) !== 'a' || !(e.getAttribute('href') ?? '').startsWith('#')) return false;
  const text = e.textContent.trim();
  const names = `${classAndId(e)} ${e.getAttribute('aria-label') ?? ''} ${e.getAttribute('title') ?? ''}`;
  return ANCHOR_TEXT.test(text) || (text.length <= 2 && /permalink|headerlink|anchor/i.test(names));
}

/** Permalink marks left at the end of a heading or title ("DNS#", "Usage ¶"). */
export const stripAnchorMarks = (text: string): string => text.replace(/\s*[#¶§🔗⚓]+$/u, '');

export function isHidden(e: HTMLElement): boolean {
  if (e.hasAttribute('hidden') || e.getAttribute('aria-hidden') === 'true') return true;
  const style = (e.getAttribute('style') ?? '').replace(/\s+/g, '').toLowerCase();
  return style.includes('display:none') || style.includes('visibility:hidden');
}

/** Removes elements that never hold readable text (scripts, styles, media) from a converted document. */
export function dropNonText(e: HTMLElement): void {
  for (const child of elementChildren(e)) {
    if (NEVER_TEXT.has(tagOf(child))) child.remove();
    else dropNonText(child);
  }
}

/**
 * Removes from a web page what is never article: non-text elements, page chrome (navigation, forms,
 * footers), hidden elements; with `strict`, also blocks whose class or id look like boilerplate.
 */
export function prune(e: HTMLElement, strict: boolean): void {
  for (const child of elementChildren(e)) {
    const tag = tagOf(child);
    const role = child.getAttribute('role') ?? '';
    const names = classAndId(child);
    // Some sites wrap the whole page in one <form>: only a form without prose is dropped. Footnotes are
    // often an <aside> (Sphinx, DPUB-ARIA roles): the article's own, not chrome around it.
    const drop =
      NEVER_TEXT.has(tag) ||
      (NOT_ARTICLE.has(tag) &&
        !(tag === 'form' && child.querySelectorAll('p').length >= 3) &&
        !(tag === 'aside' && holdsNotes(child))) ||
      isHidden(child) ||
      DROP_ROLES.test(role) ||
      (strict &&
        tag !== 'body' &&
        tag !== 'article' &&
        tag !== 'main' &&
        tag !== 'a' &&
        UNLIKELY.test(names) &&
        !MAYBE.test(names));
    if (drop) child.remove();
    else prune(child, strict);
  }
}

const NOTE_ROLES = '[role="note"], [role="doc-footnote"], [role="doc-endnote"], [role="doc-endnotes"]';
const holdsNotes = (e: HTMLElement): boolean =>
  /^(note|doc-footnote|doc-endnotes?)$/.test(e.getAttribute('role') ?? '') ||
  e.querySelector(NOTE_ROLES) !== null;

export function contains(outer: HTMLElement, inner: HTMLElement): boolean {
  for (let n: HTMLElement | null = inner; n; n = n.parentNode as HTMLElement | null)
    if (n === outer) return true;
  return false;
}
