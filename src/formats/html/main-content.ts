import type { HTMLElement } from 'node-html-parser';
import {
  BLOCK_TAGS,
  classAndId,
  classWeight,
  contains,
  elementChildren,
  isElement,
  linkDensity,
  tagOf,
  textLength,
} from './dom.js';
import { isDataTable } from './tables.js';

// Main-content choice in the manner of Readability: score blocks of prose, credit their ancestors,
// pick the best-scoring container and its prose siblings, then clean what is inside it.

const PROSE_TAGS = new Set(['p', 'pre', 'td', 'blockquote']);
/** Parts of an article that are not prose but belong with it when they sit between or after its parts. */
const STRUCTURE_TAGS = new Set(['ul', 'ol', 'dl', 'table', 'pre', 'blockquote']);
const HEADING = /^h[1-6]$/;

const BASE_SCORE: Record<string, number> = {
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

const initialScore = (e: HTMLElement): number => (BASE_SCORE[tagOf(e)] ?? 0) + classWeight(e);

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

function scoreBlocks(body: HTMLElement): Map<HTMLElement, number> {
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
  for (const [e, s] of scores) scores.set(e, s * (1 - linkDensity(e)));
  return scores;
}

/** A list, table or code block standing among the article's parts rather than around it. */
function isArticleStructure(e: HTMLElement): boolean {
  const tag = tagOf(e);
  if (!STRUCTURE_TAGS.has(tag) || classWeight(e) < 0 || textLength(e) === 0) return false;
  return tag === 'table' ? isDataTable(e) : linkDensity(e) < 0.5;
}

const isSubheading = (e: HTMLElement): boolean =>
  HEADING.test(tagOf(e)) && classWeight(e) >= 0 && textLength(e) > 0;

/** The elements that make up the article, in document order. */
export function pickContent(body: HTMLElement): HTMLElement[] {
  const scores = scoreBlocks(body);
  let top: HTMLElement | undefined;
  let topScore = Number.NEGATIVE_INFINITY;
  for (const [e, s] of scores) {
    if (s > topScore) {
      top = e;
      topScore = s;
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
  const siblings = elementChildren(parent);
  const chosen = new Set<HTMLElement>();
  for (const sibling of siblings) {
    if (sibling === top) {
      chosen.add(sibling);
      continue;
    }
    const bonus = classAndId(sibling).trim() && classAndId(sibling) === classAndId(top) ? topScore * 0.2 : 0;
    const s = (scores.get(sibling) ?? Number.NEGATIVE_INFINITY) + bonus;
    if (s >= threshold) {
      chosen.add(sibling);
      continue;
    }
    if (tagOf(sibling) === 'p') {
      const len = textLength(sibling);
      const density = linkDensity(sibling);
      const text = sibling.textContent;
      if ((len > 80 && density < 0.25) || (len > 0 && len <= 80 && density === 0 && /\.( |$)/.test(text))) {
        chosen.add(sibling);
      }
    }
  }
  // Lists, tables, code and subheadings carry no prose score of their own; those standing between
  // chosen parts are the article's, and so are lists, tables and code right after its last part (a
  // link-heavy list there is recommendations, and isArticleStructure turns it down).
  const picked = siblings.map((s) => chosen.has(s));
  const first = picked.indexOf(true);
  let last = picked.lastIndexOf(true);
  for (let i = first + 1; i < siblings.length; i++) {
    const sibling = siblings[i]!;
    if (picked[i]) continue;
    const between = i < last && (isSubheading(sibling) || isArticleStructure(sibling));
    // A subheading right after the article counts when a table or list of its own follows it.
    const next = siblings[i + 1];
    const trailing =
      i === last + 1 &&
      (isArticleStructure(sibling) ||
        (isSubheading(sibling) && next !== undefined && isArticleStructure(next)));
    if (!between && !trailing) continue;
    chosen.add(sibling);
    if (trailing) last = i;
  }
  const ordered = siblings.filter((s) => chosen.has(s));
  if (pieces.length === 0) return ordered;
  // Pieces elsewhere in the page join in document order, unless already inside what was chosen.
  const all = [...ordered, ...pieces.filter((p) => !ordered.some((c) => contains(c, p) || contains(p, c)))];
  const order = new Map(body.querySelectorAll('*').map((e, i) => [e, i] as const));
  return all.sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
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

// A <header> inside the article (its title and standfirst) is never judged.
const CLEANED = new Set(['div', 'section', 'ul', 'ol', 'table', 'figure']);

/**
 * Inside the chosen content: removes boxes, lists and tables that are mostly links or marked as
 * boilerplate. A data table is kept unless its class says otherwise, and a short list or a box
 * holding a list or table is not removed for being short: a two-row price table is the answer.
 */
export function cleanConditionally(e: HTMLElement): void {
  for (const child of elementChildren(e)) {
    const tag = tagOf(child);
    if (CLEANED.has(tag)) {
      const weight = classWeight(child);
      const list = tag === 'ul' || tag === 'ol';
      // A box around a data table (a scrolling wrapper) is judged as the table is.
      const data =
        tag === 'table' ? isDataTable(child) : child.querySelectorAll('table').some((t) => isDataTable(t));
      const density = linkDensity(child);
      const len = textLength(child);
      const paragraphs = child.querySelectorAll('p').length;
      const items = child.querySelectorAll('li').length;
      const structured = list || tag === 'table' || child.querySelector('table, ul, ol, pre') !== null;
      const junk =
        weight < 0 ||
        (!data && density > 0.5 && len < 2000) ||
        (!data && !list && weight < 25 && density > 0.25 && paragraphs === 0) ||
        (!list && !data && items > paragraphs * 2 + 5 && density > 0.2) ||
        (len < 25 && !structured && child.querySelectorAll('img').length === 0 && paragraphs === 0);
      if (junk) {
        child.remove();
        continue;
      }
    }
    cleanConditionally(child);
  }
}
