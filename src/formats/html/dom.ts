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

export function parseHtml(html: string): HTMLElement {
  // <pre> is parsed as elements (its text nodes keep their whitespace), so markup inside code blocks
  // does not leak into the text; script and style bodies are skipped without being read as markup.
  const root = parse(html, {
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

export function linkDensity(e: HTMLElement): number {
  const total = textLength(e);
  if (total === 0) return 0;
  let links = 0;
  for (const a of e.querySelectorAll('a')) {
    const href = a.getAttribute('href') ?? '';
    links += textLength(a) * (href.startsWith('#') ? 0.3 : 1);
  }
  return links / total;
}

function isHidden(e: HTMLElement): boolean {
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
    // Some sites wrap the whole page in one <form>: only a form without prose is dropped.
    const drop =
      NEVER_TEXT.has(tag) ||
      (NOT_ARTICLE.has(tag) && !(tag === 'form' && child.querySelectorAll('p').length >= 3)) ||
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

export function contains(outer: HTMLElement, inner: HTMLElement): boolean {
  for (let n: HTMLElement | null = inner; n; n = n.parentNode as HTMLElement | null)
    if (n === outer) return true;
  return false;
}
