import { type HTMLElement, type Node, NodeType, parse } from 'node-html-parser';

// Main-content extraction in the manner of Readability: drop what is never content, score blocks of
// prose, credit their ancestors, pick the best-scoring container and its prose siblings, then write it
// out as text with a line break at every block boundary.

const DROP_TAGS = new Set([
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
  'link',
  'meta',
  'head',
]);
const DROP_ROLES =
  /^(navigation|banner|contentinfo|complementary|dialog|alertdialog|menu|menubar|search|toolbar)$/i;
const UNLIKELY =
  /-ad-|^ad$|ad-break|adsense|advert|agegate|banner|breadcrumb|byline|combx|comment|community|cookie|consent|cover-wrap|disqus|extra|footer|gdpr|header|legends|masthead|menu|modal|newsletter|outbrain|pager|pagination|popup|promo|related|remark|replies|rss|share|sharing|shoutbox|sidebar|skip|skyscraper|social|sponsor|subscribe|supplemental|taboola|toolbar|trending|widget|yom-remote/i;
const MAYBE = /and|article|body|column|content|main|shadow|story|text|post/i;
const POSITIVE = /article|body|content|entry|hentry|h-entry|main|page|pagination|post|text|blog|story|prose/i;
const NEGATIVE =
  /-ad-|hidden|^hid$| hid$| hid |^hid |banner|byline|caption|combx|comment|com-|contact|credit|foot|footer|footnote|gallery|masthead|media|meta|outbrain|promo|related|scroll|share|shoutbox|sidebar|skyscraper|sponsor|shopping|social|tags|tool|widget|newsletter|subscribe|recirc|signup/i;
const BLOCK_TAGS = new Set([
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
const PROSE_TAGS = new Set(['p', 'pre', 'td', 'blockquote']);

export interface Extracted {
  title: string;
  text: string;
}

const isElement = (n: Node): n is HTMLElement => n.nodeType === NodeType.ELEMENT_NODE;
const tagOf = (e: HTMLElement) => (e.rawTagName ?? '').toLowerCase();
const classAndId = (e: HTMLElement) => `${e.getAttribute('class') ?? ''} ${e.getAttribute('id') ?? ''}`;

function classWeight(e: HTMLElement): number {
  let w = 0;
  for (const v of [e.getAttribute('class'), e.getAttribute('id')]) {
    if (!v) continue;
    if (NEGATIVE.test(v)) w -= 25;
    if (POSITIVE.test(v)) w += 25;
  }
  return w;
}

function textLength(e: HTMLElement): number {
  return e.textContent.replace(/\s+/g, ' ').trim().length;
}

function linkDensity(e: HTMLElement): number {
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

/** Removes what is never content; with `strict`, also blocks whose class or id look like boilerplate. */
function prune(e: HTMLElement, strict: boolean): void {
  for (const child of [...e.childNodes]) {
    if (!isElement(child)) continue;
    const tag = tagOf(child);
    const role = child.getAttribute('role') ?? '';
    const names = classAndId(child);
    // Some sites wrap the whole page in one <form>: only a form without prose is dropped.
    const drop =
      (DROP_TAGS.has(tag) && !(tag === 'form' && child.querySelectorAll('p').length >= 3)) ||
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

function initialScore(e: HTMLElement): number {
  const base: Record<string, number> = {
    div: 5,
    article: 8,
    main: 5,
    section: 3,
    pre: 3,
    td: 3,
    blockquote: 3,
    address: -3,
    ol: -3,
    ul: -3,
    dl: -3,
    dd: -3,
    dt: -3,
    li: -3,
    form: -3,
    h1: -5,
    h2: -5,
    h3: -5,
    h4: -5,
    h5: -5,
    h6: -5,
    th: -5,
  };
  return (base[tagOf(e)] ?? 0) + classWeight(e);
}

/** The text of a container that is not inside any of its child blocks. */
function ownText(e: HTMLElement): string {
  let own = '';
  for (const c of e.childNodes) {
    if (isElement(c) && BLOCK_TAGS.has(tagOf(c))) continue;
    own += ` ${c.textContent}`;
  }
  return own;
}

/** A div whose own text (not in child blocks) is prose counts as a paragraph. */
function hasOwnProse(e: HTMLElement): boolean {
  return ownText(e).replace(/\s+/g, ' ').trim().length >= 25;
}

function pickContent(body: HTMLElement): HTMLElement[] {
  const scores = new Map<HTMLElement, number>();
  const credit = (e: HTMLElement | null, amount: number) => {
    if (!e || !tagOf(e)) return;
    if (!scores.has(e)) scores.set(e, initialScore(e));
    scores.set(e, scores.get(e)! + amount);
  };
  for (const block of body.querySelectorAll('*')) {
    const tag = tagOf(block);
    // Loose text in a div is a paragraph of that div (Readability wraps it in a <p> of its own).
    const loose = (tag === 'div' || tag === 'section' || tag === 'article') && hasOwnProse(block);
    if (!PROSE_TAGS.has(tag) && !loose) continue;
    const text = (loose ? ownText(block) : block.textContent).replace(/\s+/g, ' ').trim();
    if (text.length < 25) continue;
    const score = 1 + (text.match(/[,，、]/g)?.length ?? 0) + Math.min(Math.floor(text.length / 100), 3);
    let ancestor = (loose ? block : block.parentNode) as HTMLElement | null;
    for (
      let level = 0;
      ancestor && level < 5;
      level++, ancestor = ancestor.parentNode as HTMLElement | null
    ) {
      credit(ancestor, score / (level === 0 ? 1 : level === 1 ? 2 : level * 3));
    }
  }
  let top: HTMLElement | undefined;
  let topScore = Number.NEGATIVE_INFINITY;
  for (const [e, s] of scores) {
    const final = s * (1 - linkDensity(e));
    scores.set(e, final);
    if (final > topScore) {
      top = e;
      topScore = final;
    }
  }
  if (!top) return [body];

  // A container whose only real child is the top candidate says the same thing with its framing; and
  // when the top's parent scores nearly as well, the article is spread across it.
  while (top.parentNode && tagOf(top.parentNode as HTMLElement) !== 'body') {
    const parent = top.parentNode as HTMLElement;
    const ps = scores.get(parent);
    if (ps === undefined || ps < topScore * 0.85) break;
    top = parent;
    topScore = ps;
  }

  const parent = top.parentNode as HTMLElement | null;
  if (!parent) return [top];
  const pieces = sameClassPieces(body, top, scores);
  const threshold = Math.max(10, topScore * 0.2);
  const chosen: HTMLElement[] = [];
  for (const sibling of parent.childNodes) {
    if (!isElement(sibling)) continue;
    if (sibling === top) {
      chosen.push(sibling);
      continue;
    }
    const bonus = classAndId(sibling).trim() && classAndId(sibling) === classAndId(top) ? topScore * 0.2 : 0;
    const s = (scores.get(sibling) ?? Number.NEGATIVE_INFINITY) + bonus;
    if (s >= threshold) {
      chosen.push(sibling);
      continue;
    }
    if (tagOf(sibling) === 'p') {
      const len = textLength(sibling);
      const density = linkDensity(sibling);
      const text = sibling.textContent;
      if ((len > 80 && density < 0.25) || (len > 0 && len <= 80 && density === 0 && /\.( |$)/.test(text))) {
        chosen.push(sibling);
      }
    }
  }
  if (pieces.length === 0) return chosen;
  // Pieces elsewhere in the page join in document order, unless already inside what was chosen.
  const all = [...chosen, ...pieces.filter((p) => !chosen.some((c) => contains(c, p) || contains(p, c)))];
  const order = new Map(body.querySelectorAll('*').map((e, i) => [e, i] as const));
  return all.sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
}

function contains(outer: HTMLElement, inner: HTMLElement): boolean {
  for (let n: HTMLElement | null = inner; n; n = n.parentNode as HTMLElement | null)
    if (n === outer) return true;
  return false;
}

/**
 * Articles split into several containers (around a figure, a pull quote or an ad slot) usually give
 * every part the same class. Other prose containers with the top candidate's exact class join it.
 */
function sameClassPieces(
  body: HTMLElement,
  top: HTMLElement,
  scores: Map<HTMLElement, number>,
): HTMLElement[] {
  const cls = top.getAttribute('class')?.trim();
  if (!cls) return [];
  return body.querySelectorAll(tagOf(top)).filter((e) => {
    if (e === top || e.getAttribute('class')?.trim() !== cls || contains(top, e) || contains(e, top))
      return false;
    const score = scores.get(e) ?? 0;
    return score > 0 && textLength(e) >= 200 && linkDensity(e) < 0.3;
  });
}

/** Inside the chosen content: lists, tables and boxes that are mostly links or marked as boilerplate. */
function cleanConditionally(e: HTMLElement): void {
  for (const child of [...e.childNodes]) {
    if (!isElement(child)) continue;
    const tag = tagOf(child);
    if (['div', 'section', 'ul', 'ol', 'table', 'figure', 'header'].includes(tag)) {
      const weight = classWeight(child);
      const density = linkDensity(child);
      const len = textLength(child);
      const paragraphs = child.querySelectorAll('p').length;
      const items = child.querySelectorAll('li').length;
      const junk =
        weight < 0 ||
        (density > 0.5 && len < 2000) ||
        (weight < 25 && density > 0.25 && paragraphs === 0 && tag !== 'ul' && tag !== 'ol') ||
        (tag !== 'ul' && tag !== 'ol' && items > paragraphs * 2 + 5 && density > 0.2) ||
        (len < 25 && child.querySelectorAll('img').length === 0 && paragraphs === 0 && tag !== 'header');
      if (junk && tag !== 'header') {
        child.remove();
        continue;
      }
    }
    cleanConditionally(child);
  }
}

/** Text with a line break at every block boundary and whitespace collapsed inside lines. */
export function blockText(nodes: Node[]): string {
  const out: string[] = [];
  let line = '';
  const flush = () => {
    const t = line.replace(/[ \t\f\v\u00a0]+/g, ' ').trim();
    if (t) out.push(t);
    line = '';
  };
  const walk = (n: Node, pre: boolean) => {
    if (!isElement(n)) {
      const t = n.text;
      if (pre) {
        const parts = t.split('\n');
        parts.forEach((p, i) => {
          line += p;
          if (i < parts.length - 1) flush();
        });
      } else line += t.replace(/\s+/g, ' ');
      return;
    }
    const tag = tagOf(n);
    if (tag === 'br') {
      flush();
      return;
    }
    const block = BLOCK_TAGS.has(tag);
    if (block) flush();
    for (const c of n.childNodes) walk(c, pre || tag === 'pre');
    if (tag === 'td' || tag === 'th') line += ' ';
    if (block) flush();
  };
  for (const n of nodes) walk(n, false);
  flush();
  return out.join('\n');
}

// A short line like these ends the article: what follows is recommendations, tags or comments.
const TAIL =
  /^(you (may|might) (also )?like|related( (articles|posts|stories|content))?|read (more|next|also)|more (from|stories|on)|recommended( for you)?|tags|topics|share (this|on)|comments?|leia (também|mais)|veja também|você pode gostar|lire aussi|à lire aussi|mehr zum thema|auch interessant|lee también|te puede interesar|leggi anche)\b/i;
// Short lines like these before the article proper are a byline or a timestamp.
const BYLINE = /^(by |updated\b|posted\b|published\b|last (updated|modified)\b)/i;

/** Drops a byline at the top and recommendation lists at the bottom. */
function trimEdges(text: string): string {
  const lines = text.split('\n');
  let start = 0;
  for (let i = 0; i < Math.min(lines.length, 4); i++)
    if (BYLINE.test(lines[i]!) && lines[i]!.length < 120) start = i + 1;
  // Only near the end: a "Related" heading in the middle of an article is part of it.
  const total = text.length;
  let end = lines.length;
  let before = 0;
  for (let i = 0; i < lines.length; i++) {
    if (i >= start + 3 && before > total * 0.6 && lines[i]!.length < 60 && TAIL.test(lines[i]!)) {
      end = i;
      break;
    }
    before += lines[i]!.length + 1;
  }
  return lines.slice(start, end).join('\n');
}

export function extractTitle(root: HTMLElement): string {
  const og = root.querySelector('meta[property="og:title"]')?.getAttribute('content');
  const title = og || root.querySelector('title')?.textContent || root.querySelector('h1')?.textContent || '';
  return title.replace(/\s+/g, ' ').trim();
}

/** `articleBody` from the page's JSON-LD (schema.org Article), which script-rendered pages often carry. */
export function jsonLdArticleBody(html: string): string | undefined {
  let best: string | undefined;
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === 'object') {
      const body = (value as { articleBody?: unknown }).articleBody;
      if (typeof body === 'string' && body.length > (best?.length ?? 0)) best = body;
      for (const v of Object.values(value)) if (v && typeof v === 'object') visit(v);
    }
  };
  for (const m of html.matchAll(
    /<script[^>]*type=["']?application\/ld\+json["']?[^>]*>([\s\S]*?)<\/script>/gi,
  )) {
    try {
      visit(JSON.parse(m[1]!));
    } catch {
      // Broken JSON-LD is common (trailing commas, two objects): take the articleBody string on its own.
      const literal = /"articleBody"\s*:\s*("(?:[^"\\]|\\.)*")/.exec(m[1]!)?.[1];
      try {
        if (literal) visit({ articleBody: JSON.parse(literal) });
      } catch {
        // Not even the string is valid: the HTML itself is still read.
      }
    }
  }
  // Paragraphs in articleBody are often glued together ("moons.The find"): split them again.
  return best
    ?.replace(/<[^>]+>/g, ' ')
    .replace(/([a-z0-9][.!?][”"’]?)(?=[A-Z])/g, '$1\n')
    .trim();
}

export function extractHtml(html: string): Extracted {
  const parseRoot = () =>
    parse(html, {
      comment: false,
      lowerCaseTagName: true,
      blockTextElements: { script: false, style: false, noscript: false, template: false, pre: true },
    });
  const root = parseRoot();
  const title = extractTitle(root);
  // Strict first; if that leaves too little, the page's structure fooled the class heuristics: relax.
  let best = '';
  for (const strict of [true, false]) {
    const tree = strict ? root : parseRoot();
    const body = tree.querySelector('body') ?? tree;
    prune(body, strict);
    const content = pickContent(body);
    for (const c of content) cleanConditionally(c);
    const text = trimEdges(blockText(content));
    if (text.length > best.length) best = text;
    if (best.length >= 500) break;
  }
  // When the visible HTML holds much less than the page's own structured article text, the article was
  // meant to be rendered by a script: trust the structured text.
  const structured = jsonLdArticleBody(html);
  if (structured && structured.length > best.length * 1.5) best = structured;
  return { title, text: best };
}
